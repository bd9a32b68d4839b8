#!/usr/bin/python3
"""A deliberately broken LDAP server for driver tests, on 127.0.0.1:PORT.

  ldap_stub.py PORT MODE

Every connection's bind is answered with success (messageID as asked), then by MODE:
  close-after-bind  close the connection right after the BindResponse
  busy              answer each search with SearchResultDone busy (51)
  wrong-id          answer each search with a SearchResultDone for messageID + 1
  notice            answer a search with a Notice of Disconnection (unavailable, 52), close
  no-bind           never answer the bind (the connection stays open)
It prints "listening" on stderr once bound and serves until killed. Only what the driver sends
is parsed: short-form or long-form lengths, one-byte tags.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from listener import serve_forever  # noqa: E402

NOTICE_OID = b"1.3.6.1.4.1.1466.20036"


def tlv(tag, body):
    n = len(body)
    if n < 0x80:
        head = bytes([n])
    else:
        k = (n.bit_length() + 7) // 8
        head = bytes([0x80 | k]) + n.to_bytes(k, "big")
    return bytes([tag]) + head + body


def integer(v):
    k = max(1, (v.bit_length() + 8) // 8)  # room for the sign bit
    return tlv(0x02, v.to_bytes(k, "big", signed=True))


def result(msgid, op, code, extra=b""):
    body = tlv(0x0A, bytes([code])) + tlv(0x04, b"") + tlv(0x04, b"") + extra
    return tlv(0x30, integer(msgid) + tlv(op, body))


def messages(conn):
    """(messageID, protocolOp tag) of each LDAPMessage the client sends."""
    buf = b""
    while True:
        while True:
            if len(buf) >= 2:
                n, off = buf[1], 2
                if n & 0x80:
                    k = n & 0x7F
                    n, off = int.from_bytes(buf[2:2 + k], "big"), 2 + k
                if len(buf) >= off + n:
                    break
            d = conn.recv(65536)
            if not d:
                return
            buf += d
        msg, buf = buf[off:off + n], buf[off + n:]
        idlen = msg[1]
        msgid = int.from_bytes(msg[2:2 + idlen], "big")
        yield msgid, msg[2 + idlen]


def serve(conn, mode):
    for msgid, op in messages(conn):
        if op == 0x60:  # BindRequest
            if mode == "no-bind":
                continue
            conn.sendall(result(msgid, 0x61, 0))
            if mode == "close-after-bind":
                return
        elif op == 0x63:  # SearchRequest
            if mode == "busy":
                conn.sendall(result(msgid, 0x65, 51))
            elif mode == "wrong-id":
                conn.sendall(result(msgid + 1, 0x65, 0))
            elif mode == "notice":
                conn.sendall(result(0, 0x78, 52, tlv(0x8A, NOTICE_OID)))
                return
        elif op == 0x42:  # UnbindRequest
            return


def main():
    serve_forever(int(sys.argv[1]), serve, sys.argv[2])


if __name__ == "__main__":
    main()
