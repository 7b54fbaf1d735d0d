#!/usr/bin/env python3
"""The transport's floor: one send() of a ~450-byte frame to each of N loopback TCP
sockets whose peers another process reads (epoll), repeated R rounds; the sender's
system CPU time per send (os.times), i.e. the kernel's cost of one delivery."""
import os, socket, sys, time, selectors
N = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
R = int(sys.argv[2]) if len(sys.argv) > 2 else 100
frame = b"x" * 450
lst = socket.socket(); lst.bind(("127.0.0.1", 0)); lst.listen(2048)
port = lst.getsockname()[1]
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    sel = selectors.EpollSelector()
    conns = []
    for _ in range(N):
        c = socket.create_connection(("127.0.0.1", port)); c.setblocking(False)
        sel.register(c, selectors.EVENT_READ); conns.append(c)
    os.write(w, b"1")
    got = 0
    while got < N * R * len(frame):
        for key, _ in sel.select():
            got += len(key.fileobj.recv(65536))
    os._exit(0)
socks = []
for _ in range(N):
    s, _ = lst.accept(); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1); socks.append(s)
os.read(r, 1)
t0 = os.times(); w0 = time.time()
for _ in range(R):
    for s in socks:
        s.send(frame)
    time.sleep(0.005)
t1 = os.times(); w1 = time.time()
os.waitpid(pid, 0)
n = N * R
print(f"{N} sockets x {R} rounds: system {(t1.system - t0.system) * 1e6 / n:.2f} us, "
      f"user {(t1.user - t0.user) * 1e6 / n:.2f} us per send; load {os.getloadavg()[0]:.2f}")
