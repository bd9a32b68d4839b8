# SPDX-License-Identifier: MIT
"""HTTP/2's wire format (RFC 9113, 4.1), as the raw test peers write it (h2_bad_server.py,
h2_many_frames.py, h2_write_gap_server.py, grpc_bad_server.py): a frame's bytes, the client
preface, a header written as an HPACK literal, a raw server's side of the opening exchange."""

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, GOAWAY, WINDOW_UPDATE = 0, 1, 3, 4, 7, 8
END_STREAM, END_HEADERS, ACK = 0x1, 0x4, 0x1


def frame(ftype, flags, stream, payload=b""):
	"""One frame: its 9-byte header (length, type, flags, stream id) and payload."""
	return len(payload).to_bytes(3, "big") + bytes([ftype, flags]) + \
		stream.to_bytes(4, "big") + payload


def read_preface(conn):
	"""A server's first read: the client preface's 24 bytes. Returns the bytes after it, None if
	the client closed before."""
	got = b""
	while len(got) < len(PREFACE):
		data = conn.recv(65536)
		if not data:
			return None
		got += data
	return got[len(PREFACE):]


def hpack_literal(name, value):
	"""One header as HPACK's literal without indexing, with a new name and no Huffman code
	(RFC 7541, 6.2.2): name and value under 127 bytes each. (":status: 200" is simply b"\\x88",
	the static table's entry 8.)"""
	return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value


def client_frames(conn):
	"""A raw server's connection: reads the client preface, sends its SETTINGS, acknowledges the
	client's, and yields each other client frame whole as (type, flags, stream id); ends at a
	GOAWAY or the client's close."""
	buf = read_preface(conn)
	if buf is None:
		return
	conn.sendall(frame(SETTINGS, 0, 0))
	while True:
		while len(buf) < 9 or len(buf) < 9 + int.from_bytes(buf[:3], "big"):
			b = conn.recv(65536)
			if not b:
				return
			buf += b
		n = int.from_bytes(buf[:3], "big")
		t, fl, sid = buf[3], buf[4], int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF
		buf = buf[9 + n:]
		if t == SETTINGS and not fl & ACK:
			conn.sendall(frame(SETTINGS, ACK, 0))
		elif t == GOAWAY:
			return
		elif t != SETTINGS:
			yield t, fl, sid
