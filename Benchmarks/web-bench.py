"""The WebSocket bridge's cost (docs/performance.md "WebSocket bridge"; run by
scripts/benchmark-daemon.sh with ONLY=web).

One `gestured run --replay` of the ten-finger 240 Hz recording (daemon-bench writes it), one
`gestured-web` in front of it, and in one asyncio process N browser-like WebSocket clients
(through the bridge) and N Unix-socket clients (direct), all subscribed to the same stream
at the same time, so both see the same load and the same client-side delays. Latency is
receipt (CLOCK_MONOTONIC) minus the event's `time` (the input's kernel timestamp, same
clock), for every gesture line of every client; the difference between the two columns is
what the bridge adds. Also the bridge's resident memory idle (started, one browser
connected, nothing flowing) and after the load, and its CPU. Figures are printed, never
judged; a ROW| line feeds the table.

Usage: web-bench.py GESTURED GESTURED_WEB RECORDING --clients N --seconds S
"""

import argparse
import asyncio
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from typing import List

import websockets

from process_figures import cpu_seconds, free_port, status_kib

TIME = re.compile(rb'"time":(\d+)')


def monotonic_us() -> int:
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000


def percentile(values: List[int], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] / 1000


class Latencies:
    def __init__(self) -> None:
        self.values: List[int] = []
        self.dropped = 0

    def line(self, line: bytes) -> bool:
        """Records a gesture line's latency; True at the replay's end (the device removed)."""
        if line.startswith(b'{"type":"gesture"'):
            match = TIME.search(line)
            if match:
                self.values.append(monotonic_us() - int(match.group(1)))
        elif line.startswith(b'{"type":"overflow"'):
            self.dropped += int(re.search(rb'"dropped":(\d+)', line).group(1))  # type: ignore[union-attr]
        elif line.startswith(b'{"type":"device","phase":"removed"'):
            return True
        return False


async def unix_client(path: str, latencies: Latencies, ready: asyncio.Event, go: asyncio.Event) -> None:
    reader, writer = await asyncio.open_unix_connection(path, limit=1 << 20)
    await reader.readline()  # hello
    ready.set()
    await go.wait()
    while True:
        line = await reader.readline()
        if not line or latencies.line(line):
            break
    writer.close()


async def web_client(url: str, origin: str, latencies: Latencies, ready: asyncio.Event, go: asyncio.Event) -> None:
    async with websockets.connect(url, origin=origin, max_queue=None, compression=None) as ws:  # type: ignore[arg-type]
        await ws.recv()  # hello
        ready.set()
        await go.wait()
        async for message in ws:
            if latencies.line(message.encode() if isinstance(message, str) else message):
                break


async def run(args: argparse.Namespace, work: str) -> str:
    daemon_socket = os.path.join(work, "gestured.sock")
    config = os.path.join(work, "gestured.toml")
    with open(config, "w") as f:
        f.write('[daemon]\nmax-clients = %d\nlog-level = "warning"\n' % (2 * args.clients + 16))
    daemon = subprocess.Popen([args.gestured, "run", "--replay", args.recording, "--speed", "1", "--wait-for-subscriber",
                               "--socket", daemon_socket, "--config", config, "--log-level", "warning"])
    port = free_port()
    web_config = os.path.join(work, "gestured-web.toml")
    with open(web_config, "w") as f:
        f.write("[web]\n")  # the defaults (client-queue 1024, drop-oldest)
    bridge = subprocess.Popen([args.gestured_web, "--listen", "127.0.0.1:%d" % port, "--socket", daemon_socket,
                               "--config", web_config, "--log-level", "warning"])
    try:
        for _ in range(200):
            if os.path.exists(daemon_socket):
                break
            await asyncio.sleep(0.05)
        url, origin = "ws://127.0.0.1:%d/ws" % port, "http://127.0.0.1:%d" % port
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                await asyncio.sleep(0.05)
        await asyncio.sleep(1)
        started_rss = status_kib(bridge.pid, "VmRSS")
        # Idle: one browser connected, nothing flowing (the replay waits for a subscriber).
        async with websockets.connect(url, origin=origin) as idle:
            await idle.recv()
            await asyncio.sleep(2)
            idle_rss = status_kib(bridge.pid, "VmRSS")

        go = asyncio.Event()
        direct, bridged = Latencies(), Latencies()
        tasks, readies = [], []
        for _ in range(args.clients):
            for kind in ("unix", "web"):
                ready = asyncio.Event()
                readies.append(ready)
                if kind == "unix":
                    tasks.append(asyncio.create_task(unix_client(daemon_socket, direct, ready, go)))
                else:
                    tasks.append(asyncio.create_task(web_client(url, origin, bridged, ready, go)))
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 30)
        connected_rss = status_kib(bridge.pid, "VmRSS")
        cpu_before = cpu_seconds(bridge.pid)
        wall_before = time.monotonic()
        # The replay starts with the first subscribe (--wait-for-subscriber); every client
        # takes every gesture without subscribing.
        starter_reader, starter = await asyncio.open_unix_connection(daemon_socket)
        await starter_reader.readline()
        go.set()
        starter.write(b'{"type":"subscribe","gestures":["tap"]}\n')
        await starter.drain()
        await asyncio.wait_for(asyncio.gather(*tasks), args.seconds + 60)
        cpu = (cpu_seconds(bridge.pid) - cpu_before) / (time.monotonic() - wall_before) * 100
        loaded_rss = status_kib(bridge.pid, "VmRSS")
        peak_rss = status_kib(bridge.pid, "VmHWM")
        starter.close()
    finally:
        for process in (bridge, daemon):
            process.terminate()
            process.wait(timeout=10)

    def ms(value: float) -> str:
        return "%.2f ms" % value

    print("clients:             %d through the bridge (WebSocket), %d direct (Unix socket), at once" % (args.clients, args.clients))
    for name, latencies in (("direct (Unix socket)", direct), ("via gestured-web", bridged)):
        v = latencies.values
        print("%-20s %d gesture lines, %d dropped; latency p50 %s, p99 %s, max %s" % (
            name + ":", len(v), latencies.dropped, ms(percentile(v, 0.5)), ms(percentile(v, 0.99)), ms(max(v) / 1000 if v else float("nan"))))
    added_p50 = percentile(bridged.values, 0.5) - percentile(direct.values, 0.5)
    added_p99 = percentile(bridged.values, 0.99) - percentile(direct.values, 0.99)
    print("bridge adds:         p50 %s, p99 %s" % (ms(added_p50), ms(added_p99)))
    print("bridge CPU:          %.1f%% of one core during the load" % cpu)
    print("bridge RSS:          %.1f MiB started, %.1f MiB idle with 1 browser, %.1f MiB with %d browsers, %.1f MiB after the load, peak %.1f MiB" % (
        started_rss / 1024, idle_rss / 1024, connected_rss / 1024, args.clients, loaded_rss / 1024, peak_rss / 1024))
    row = "| %d | %s | %s | %s | %s | %s | %d | %.1f%% | %.1f MiB | %.1f MiB |" % (
        args.clients, ms(percentile(direct.values, 0.5)), ms(percentile(direct.values, 0.99)),
        ms(percentile(bridged.values, 0.5)), ms(percentile(bridged.values, 0.99)), ms(added_p99),
        bridged.dropped, cpu, idle_rss / 1024, peak_rss / 1024)
    return row


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("gestured")
    parser.add_argument("gestured_web")
    parser.add_argument("recording")
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        row = asyncio.run(run(args, work))
    print("ROW" + row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
