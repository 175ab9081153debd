"""Hostile local clients against gestured-web, with bounded loads (docs/web.md "Limits",
docs/reliability.md "The bridge and gesturectl against hostile local clients"). Figures are printed, never judged.

One `gestured run --replay demo/demo.events --loop` on a private socket, one gestured-web
in front of it (GESTURED_WEB, so the binary of an older commit can be measured the same
way), and, one after the other:

  baseline   one healthy browser that reads everything: its lines per second and the
             events it was told it lost, the bridge's CPU and peak RSS;
  stalled    the same with N browsers that never read;
  pings      the same with N browsers that never read and send ten `ping` requests every
             millisecond.
  pipeline   one client that sends P pipelined `GET /live.js` and never reads: the
             bridge's RSS afterwards.
  idle       C idle connections (the bridge's descriptor limit set to 256 with prlimit):
             the bridge's CPU over the next seconds, and whether a new client is served.
  rebind     GET /metrics with a foreign Host: the status.

Usage: hostile-bridge.py GESTURED GESTURED_WEB DEMO [--seconds S] [--stalled N]
       [--speed X] [--pipelined P] [--idle C]
"""

import argparse
import multiprocessing
import base64
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

from process_figures import cpu_seconds, free_port, status_kib


def masked(opcode, payload):
    mask = b"\x01\x02\x03\x04"
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + body


def upgrade(port, receive_buffer=None):
    s = socket.socket()
    if receive_buffer:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(
        (
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (port, key)
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            break
        head += chunk
    return s, head


class Healthy(threading.Thread):
    """Reads every frame; counts text lines and the events `overflow` lines report lost."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.sock, _ = upgrade(port)
        self.sock.sendall(masked(1, b'{"type":"subscribe","touches":true}'))
        self.lines = 0
        self.dropped = 0
        self.stop = False
        self.buffer = b""

    def read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def run(self):
        try:
            while not self.stop:
                b0, b1 = self.read(2)
                length = b1 & 0x7F
                if length == 126:
                    length = struct.unpack(">H", self.read(2))[0]
                elif length == 127:
                    length = struct.unpack(">Q", self.read(8))[0]
                payload = self.read(length)
                if b0 & 0x0F == 1:
                    self.lines += 1
                    if payload.startswith(b'{"type":"overflow"'):
                        self.dropped += int(payload.split(b":")[-1].rstrip(b"}"))
                elif b0 & 0x0F == 8:
                    return
        except (EOFError, OSError):
            return


def pinger(port, stalled, seconds, send_pings):
    """`stalled` browsers that never read; with `send_pings`, each sends ten `ping`
    requests every millisecond (in a process of its own, so that the healthy reader does
    not wait for the interpreter)."""
    sockets = []
    for _ in range(stalled):
        s, _ = upgrade(port, receive_buffer=4096)
        s.setblocking(False)
        sockets.append(s)
    ping = masked(1, b'{"type":"ping"}') * 10
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if send_pings:
            for s in sockets:
                try:
                    s.send(ping)
                except OSError:
                    pass
        time.sleep(0.001)


args_warmup = 3.0


def pings(port, pid, stalled, seconds, send_pings=True):
    healthy = Healthy(port)
    healthy.start()
    others = multiprocessing.Process(target=pinger, args=(port, stalled, seconds + args_warmup, send_pings))
    others.start()
    time.sleep(args_warmup)  # connected, and the one-time burst of a stalled browser over
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    lines0, dropped0 = healthy.lines, healthy.dropped
    peak = 0
    deadline = t0 + seconds - 0.5
    while time.monotonic() < deadline:
        peak = max(peak, status_kib(pid, "VmRSS"))
        time.sleep(0.05)
    elapsed = time.monotonic() - t0
    cpu = (cpu_seconds(pid) - cpu0) / elapsed * 100
    rate = (healthy.lines - lines0) / elapsed
    alive = healthy.is_alive()
    others.join()
    healthy.stop = True
    healthy.sock.close()
    return rate, healthy.dropped - dropped0, cpu, peak / 1024, alive


def pipeline(port, pid, count):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.settimeout(5)
    request = ("GET /live.js HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port).encode()
    sent = 0
    try:
        for _ in range(count // 100):
            s.sendall(request * 100)
            sent += 100
    except (socket.timeout, OSError):
        pass
    time.sleep(1)
    during = status_kib(pid, "VmRSS") / 1024
    s.close()
    time.sleep(1)
    after = status_kib(pid, "VmRSS") / 1024
    return sent, during, after


def idle(port, pid, count, seconds):
    held = []
    for _ in range(count):
        try:
            s = socket.socket()
            s.settimeout(2)
            s.connect(("127.0.0.1", port))
            held.append(s)
        except OSError:
            break
    time.sleep(0.5)
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    cpu = (cpu_seconds(pid) - cpu0) / (time.monotonic() - t0) * 100
    served = False
    try:
        c = socket.create_connection(("127.0.0.1", port), timeout=3)
        c.sendall(b"GET /regions HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        served = c.recv(12).startswith(b"HTTP/1.1 200")
        c.close()
    except OSError:
        pass
    for s in held:
        s.close()
    return len(held), cpu, served


def rebind(port):
    c = socket.create_connection(("127.0.0.1", port), timeout=5)
    c.sendall(("GET /metrics HTTP/1.1\r\nHost: rebind.evil.example:%d\r\nConnection: close\r\n\r\n" % port).encode())
    line = c.recv(64).split(b"\r\n")[0].decode()
    c.close()
    return line


# The loads, bounded: (option, type, default).
OPTIONS = [("--seconds", float, 10), ("--stalled", int, 10), ("--speed", float, 20), ("--pipelined", int, 20000), ("--idle", int, 300)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gestured")
    parser.add_argument("gestured_web")
    parser.add_argument("demo")
    for option, kind, default in OPTIONS:
        parser.add_argument(option, type=kind, default=default)
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="hostile-bridge.")
    sock = os.path.join(directory, "g.sock")
    config = os.path.join(directory, "gestured.toml")
    with open(config, "w") as f:
        f.write("[daemon]\nmax-clients = 256\n")
    web_config = os.path.join(directory, "gestured-web.toml")
    with open(web_config, "w") as f:
        f.write("[web]\n")
    web_root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "web")
    daemon = subprocess.Popen(
        [args.gestured, "run", "--replay", args.demo, "--loop", "--speed", str(args.speed), "--socket", sock, "--config", config],
        stderr=subprocess.DEVNULL,
    )
    port = free_port()
    bridge = None
    try:
        for _ in range(100):
            if os.path.exists(sock):
                break
            time.sleep(0.05)
        bridge = subprocess.Popen(
            ["prlimit", "--nofile=256:256", args.gestured_web, "--listen", "127.0.0.1:%d" % port, "--socket", sock,
             "--web-root", web_root, "--config", web_config],
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        pid = bridge.pid
        print("bridge: %s (pid %d), idle RSS %.1f MiB" % (args.gestured_web, pid, status_kib(pid, "VmRSS") / 1024))
        for name, stalled, send_pings in [("baseline", 0, False), ("stalled", args.stalled, False), ("pings", args.stalled, True)]:
            rate, dropped, cpu, peak, alive = pings(port, pid, stalled, args.seconds, send_pings)
            print(
                "ROW|%s|%d stalled browsers|healthy %.0f lines/s|lost %d|bridge CPU %.0f%%|peak RSS %.1f MiB|healthy still connected: %s"
                % (name, stalled, rate, dropped, cpu, peak, alive))
        sent, during, after = pipeline(port, pid, args.pipelined)
        print("ROW|pipeline|%d requests sent|RSS %.1f MiB while held|%.1f MiB after the close" % (sent, during, after))
        held, cpu, served = idle(port, pid, args.idle, 5)
        print("ROW|idle|%d connections (nofile 256)|bridge CPU %.0f%%|new client served: %s" % (held, cpu, served))
        print("ROW|rebind|GET /metrics, Host rebind.evil.example|%s" % rebind(port))
    finally:
        if bridge:
            bridge.terminate()
            bridge.wait(timeout=10)
        daemon.terminate()
        daemon.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
