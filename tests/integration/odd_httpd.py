#!/usr/bin/python3
"""A deliberately broken HTTP/1.1 server for driver tests, on 127.0.0.1:PORT.

The request path picks the reply:
  /status/NNN  a complete response with status NNN (keep-alive)
  /garbage     bytes that are not HTTP, then close
  /bighdr      a 200 whose headers are 200 KB, then close
It prints "listening" on stderr once bound and serves until killed.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from listener import request_heads, serve_forever  # noqa: E402

BIG = 200 * 1024


def reply(path):
    if path.startswith("/status/"):
        code = path[len("/status/"):]
        return ("HTTP/1.1 %s Odd\r\nContent-Length: 2\r\n\r\nok" % code).encode(), False
    if path == "/garbage":
        return b"\x01\x02 this is not HTTP at all\r\n\r\n", True
    if path == "/bighdr":
        return (b"HTTP/1.1 200 OK\r\nX-Big: " + b"x" * BIG + b"\r\nContent-Length: 2\r\n\r\nok",
                True)
    return b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", False


def serve(conn):
    for head in request_heads(conn):
        path = head.split(b"\r\n", 1)[0].split(b" ")[1].decode()
        data, close = reply(path)
        conn.sendall(data)
        if close:
            return


def main():
    serve_forever(int(sys.argv[1]), serve)


if __name__ == "__main__":
    main()
