#!/usr/bin/python3
"""A hand-written LDAP search loop, the peer of bench/ldap_searchrate.sh (SLAMD's
SearchRate job and hand-written loops are what LDAP benchmarks use).

  ldap_search_peer.py PORT BASE CONNECTIONS SECONDS

Each connection binds anonymously, then searches (uid=userN), N uniform in 0..9999, one at a
time, for SECONDS: asyncio on one thread, the messages built by hand (BER short forms; the same
bytes ldapsearch sends). Prints "searches N entries M seconds S" on stdout.
"""
import asyncio
import random
import sys
import time


def tlv(tag, body):
    assert len(body) < 0x80
    return bytes([tag, len(body)]) + body


def integer(v):
    return tlv(0x02, v.to_bytes(max(1, (v.bit_length() + 8) // 8), "big"))


def search(msgid, base, uid):
    flt = tlv(0xA3, tlv(0x04, b"uid") + tlv(0x04, uid))
    op = (tlv(0x04, base) + tlv(0x0A, b"\x02") + tlv(0x0A, b"\x00") + integer(0) + integer(0) +
          tlv(0x01, b"\x00") + flt + tlv(0x30, b""))
    body = integer(msgid) + bytes([0x63]) + (bytes([len(op)]) if len(op) < 0x80 else
                                              bytes([0x81, len(op)])) + op
    return bytes([0x30]) + (bytes([len(body)]) if len(body) < 0x80 else
                            bytes([0x81, len(body)])) + body


async def message(r):
    """(protocolOp tag) of the next LDAPMessage."""
    head = await r.readexactly(2)
    n = head[1]
    if n & 0x80:
        n = int.from_bytes(await r.readexactly(n & 0x7F), "big")
    msg = await r.readexactly(n)
    return msg[2 + msg[1]]


async def conn(port, base, until, counts):
    r, w = await asyncio.open_connection("127.0.0.1", port)
    w.write(bytes.fromhex("300c020101600702010304008000"))
    if await message(r) != 0x61:
        raise SystemExit("bind not answered")
    msgid = 1
    while time.monotonic() < until:
        msgid += 1
        w.write(search(msgid, base, b"user%d" % random.randrange(10000)))
        while True:
            op = await message(r)
            if op == 0x64:
                counts[1] += 1
            elif op == 0x65:
                counts[0] += 1
                break
    w.close()


async def main():
    port, base = int(sys.argv[1]), sys.argv[2].encode()
    c, secs = int(sys.argv[3]), float(sys.argv[4])
    counts = [0, 0]
    t0 = time.monotonic()
    await asyncio.gather(*(conn(port, base, t0 + secs, counts) for _ in range(c)))
    print("searches %d entries %d seconds %.3f" % (counts[0], counts[1], time.monotonic() - t0))


asyncio.run(main())
