#!/usr/bin/python3
"""A deliberately broken HTTP/1.1 server for driver tests, on 127.0.0.1:PORT.

The request path picks the reply:
  /status/NNN  a complete response with status NNN (keep-alive)
  /garbage     bytes that are not HTTP, then close
  /bighdr      a 200 whose headers are 200 KB, then close
It prints "listening" on stderr once bound and serves until killed.
"""
import socket
import sys
import threading

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
    buf = b""
    try:
        while True:
            while b"\r\n\r\n" not in buf:
                d = conn.recv(65536)
                if not d:
                    return
                buf += d
            head, buf = buf.split(b"\r\n\r\n", 1)
            path = head.split(b"\r\n", 1)[0].split(b" ")[1].decode()
            data, close = reply(path)
            conn.sendall(data)
            if close:
                return
    except OSError:
        pass
    finally:
        conn.close()


def main():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", int(sys.argv[1])))
    s.listen(128)
    print("listening", file=sys.stderr, flush=True)
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


if __name__ == "__main__":
    main()
