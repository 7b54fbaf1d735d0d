#!/usr/bin/env python3
"""The transport's floor: the kernel's cost of delivering one small frame on loopback.

    fanout-floor.py N R
        One send() of a ~450-byte frame to each of N loopback TCP sockets whose peers
        another process reads (epoll), repeated R rounds; the sender's CPU time per
        send (os.times).

    fanout-floor.py N R --fanout PATH [FLAGS...]
        The same sends, read by terrain-fanout (PATH) instead: this process answers
        just enough HTTP for it (WebSocket handshakes, zone PUTs and DELETEs) and, on
        each PUT, sends one pre-made WebSocket text frame of ~450 bytes to each of
        the N sockets before answering. terrain-fanout measures this process with
        --server-pid and prints its report; the floor is its server CPU per delivery
        (its user time is this script's Python, its system time the sends'). FLAGS
        go to terrain-fanout after --ws N --mutations R.

The server under test and the floor should be measured in one sitting: the kernel's
cost of a send varies from day to day on a shared machine.
"""
import base64, hashlib, json, os, selectors, socket, subprocess, sys, threading, time

FRAME_BYTES = 450
WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def python_reader(n, rounds):
    frame = b"x" * FRAME_BYTES
    lst = socket.socket(); lst.bind(("127.0.0.1", 0)); lst.listen(2048)
    port = lst.getsockname()[1]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        sel = selectors.EpollSelector()
        conns = []
        for _ in range(n):
            c = socket.create_connection(("127.0.0.1", port)); c.setblocking(False)
            sel.register(c, selectors.EVENT_READ); conns.append(c)
        os.write(w, b"1")
        got = 0
        while got < n * rounds * len(frame):
            for key, _ in sel.select():
                got += len(key.fileobj.recv(65536))
        os._exit(0)
    socks = []
    for _ in range(n):
        s, _ = lst.accept(); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1); socks.append(s)
    os.read(r, 1)
    t0 = os.times()
    for _ in range(rounds):
        for s in socks:
            s.send(frame)
        time.sleep(0.005)
    t1 = os.times()
    os.waitpid(pid, 0)
    sends = n * rounds
    print(f"{n} sockets x {rounds} rounds: system {(t1.system - t0.system) * 1e6 / sends:.2f} us, "
          f"user {(t1.user - t0.user) * 1e6 / sends:.2f} us per send; load {os.getloadavg()[0]:.2f}")


class BareServer:
    """The least a server can do for terrain-fanout: hold its WebSockets and send each
    PUT's event frame to all of them, one send() each."""

    def __init__(self):
        self.sockets, self.lock, self.revision = [], threading.Lock(), 0
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0)); self.listener.listen(4096)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            conn, _ = self.listener.accept()
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    @staticmethod
    def request(conn, buf):
        while b"\r\n\r\n" not in buf:
            more = conn.recv(65536)
            if not more:
                return None, None, b""
            buf += more
        head, rest = buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        return lines[0], headers, rest

    def frame(self, revision):
        text = '{"type":"event","world":"main","revision":%d,"pad":"' % revision
        text = (text + "x" * (FRAME_BYTES - 4 - len(text) - 2) + '"}').encode()
        return bytes([0x81, 126]) + len(text).to_bytes(2, "big") + text

    def serve(self, conn):
        buf = b""
        while True:
            line, headers, buf = self.request(conn, buf)
            if line is None:
                return
            if headers.get("upgrade", "").lower() == "websocket":
                key = headers["sec-websocket-key"].encode()
                accept = base64.b64encode(hashlib.sha1(key + WS_GUID).digest()).decode()
                conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                              f"Connection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n").encode())
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                with self.lock:
                    self.sockets.append(conn)
                return
            length = int(headers.get("content-length", "0"))
            while len(buf) < length:
                buf += conn.recv(65536)
            buf = buf[length:]
            answer = {}
            if line.startswith("PUT "):
                with self.lock:
                    self.revision += 1
                    frame = self.frame(self.revision)
                    for s in self.sockets:
                        s.send(frame)
                    answer = {"revision": self.revision, "change": "registered"}
            body = json.dumps(answer).encode()
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                         b"content-length: %d\r\n\r\n" % len(body) + body)


def fanout_reader(n, rounds, fanout, flags):
    server = BareServer()
    command = [fanout, "--url", f"http://127.0.0.1:{server.port}", "--ws", str(n),
               "--mutations", str(rounds), "--server-pid", str(os.getpid()), *flags]
    sys.exit(subprocess.run(command).returncode)


def main(argv):
    positional = [a for a in argv[:2] if not a.startswith("-")]
    n = int(positional[0]) if len(positional) > 0 else 1000
    rounds = int(positional[1]) if len(positional) > 1 else 100
    rest = argv[len(positional):]
    if rest[:1] == ["--fanout"] and len(rest) >= 2:
        fanout_reader(n, rounds, rest[1], rest[2:])
    elif rest:
        sys.exit(f"unexpected arguments {rest}: usage: fanout-floor.py N R [--fanout PATH [FLAGS...]]")
    else:
        python_reader(n, rounds)


if __name__ == "__main__":
    main(sys.argv[1:])
