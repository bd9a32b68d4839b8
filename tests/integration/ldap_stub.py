#!/usr/bin/python3
"""A deliberately broken LDAP server for driver tests, on 127.0.0.1:PORT.

  ldap_stub.py PORT MODE

Every connection's bind is answered with success (messageID as asked), then by MODE:
  close-after-bind  close the connection right after the BindResponse
  busy              answer each search with SearchResultDone busy (51)
  wrong-id          answer each search with a SearchResultDone for messageID + 1
  notice            answer a search with a Notice of Disconnection (unavailable, 52), close
  no-bind           never answer the bind (the connection stays open)
  half-empty        well formed: a search of an even messageID gets one SearchResultEntry, an
                    odd one none; then SearchResultDone success
and with a SearchResultDone success after a reply whose inside does not hold (each an
ldap_malformed for the driver):
  name-past-entry   an entry whose objectName claims 200 bytes inside a 10-byte entry
  value-past-attr   an entry whose attribute's SET of values is longer than the attribute
  op-past-message   a Done whose protocolOp claims a byte more than its message holds
  short-result      a Done of a resultCode alone (no matchedDN, no diagnosticMessage)
  junk-after-op     a Done with a stray byte after its protocolOp (not Controls)
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


def message(msgid, op_bytes, extra=b""):
    """An LDAPMessage: a protocolOp given whole (tag, length, contents), then extra bytes in it."""
    return tlv(0x30, integer(msgid) + op_bytes + extra)


def entry(msgid, dn, attr, value):
    """A SearchResultEntry: objectName, one attribute with one value."""
    pal = tlv(0x30, tlv(0x30, tlv(0x04, attr) + tlv(0x31, tlv(0x04, value))))
    return message(msgid, tlv(0x64, tlv(0x04, dn) + pal))


def done_ok(msgid):
    return result(msgid, 0x65, 0)


def malformed(mode, m):
    """What answers search m in a MALFORMED mode."""
    dn = tlv(0x04, b"")
    if mode == "name-past-entry":  # objectName 04 81 c8 (200 bytes), 7 behind it, in 10
        return message(m, bytes([0x64, 10, 0x04, 0x81, 0xC8]) + b"ABCDEFG") + done_ok(m)
    if mode == "value-past-attr":  # type "cn", then a SET claiming 9 of the 2 bytes left
        attr = tlv(0x30, tlv(0x04, b"cn") + bytes([0x31, 9, 0x04, 0]))
        return message(m, tlv(0x64, tlv(0x04, b"uid=a") + tlv(0x30, attr))) + done_ok(m)
    code = tlv(0x0A, b"\0")
    if mode == "op-past-message":  # the Done's 7 bytes, its length 8
        return message(m, bytes([0x65, 8]) + code + dn + dn)
    if mode == "short-result":
        return message(m, tlv(0x65, code))
    return message(m, tlv(0x65, code + dn + dn), b"\0")  # junk-after-op


MALFORMED = ("name-past-entry", "value-past-attr", "op-past-message", "short-result",
             "junk-after-op")


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
            elif mode == "half-empty":
                found = entry(msgid, b"uid=user%d,ou=people" % msgid, b"cn", b"User")
                conn.sendall((found if msgid % 2 == 0 else b"") + done_ok(msgid))
            elif mode in MALFORMED:
                conn.sendall(malformed(mode, msgid))
        elif op == 0x42:  # UnbindRequest
            return


def main():
    serve_forever(int(sys.argv[1]), serve, sys.argv[2])


if __name__ == "__main__":
    main()
