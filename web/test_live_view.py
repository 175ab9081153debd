"""The live view in a real browser (web/test.sh runs this; docs/web.md "Tests").

Starts `gestured run --replay demo/demo.events` on a private socket with two regions
configured, gestured-web socket-activated (systemd-socket-activate, as gestured-web.socket
does) on a free port of 127.0.0.1 and [::1], a Unix-socket subscriber, and headless Chromium
driven over the DevTools protocol. Checks that the page received the same gesture and device
sequence as the Unix-socket subscriber (the page's test hook, window.__gestured_received),
that a foreign origin is refused (403 to a handshake, and a page from another origin never
reads a message), and saves a screenshot of the view mid-demo. Ends with "N passed, N failed".

Usage: test_live_view.py GESTURED GESTURED_WEB OUTPUT_DIR
"""

import asyncio
import base64
import functools
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import websockets

ROOT = Path(__file__).resolve().parent.parent
DEADLINE = 60.0  # seconds any one wait may take before the test fails instead of hanging

DAEMON_CONFIG = """
# Two regions, so the view has outlines to draw and labels name a region.
[[region]]
name = "menu"
rect = [0.05, 0.05, 0.4, 0.4]

[[region]]
name = "stage"
rect = [0.3, 0.4, 0.4, 0.45]
"""

FOREIGN_PAGE = """<!doctype html><meta charset="utf-8"><title>foreign</title>
<script>
window.__result = {messages: 0, opened: false, closed: false, code: null};
const ws = new WebSocket("%s");
ws.onopen = () => { window.__result.opened = true; };
ws.onmessage = () => { window.__result.messages += 1; };
ws.onclose = (e) => { window.__result.closed = true; window.__result.code = e.code; };
</script>"""

#: Runs in the live view's page: the JS client's `decode` on the documented examples and on
#: what the daemon sent a Unix-socket subscriber, and on lines an older or a newer daemon sends.
JS_DECODING = """(async (examples, received) => {
  const client = await import("./gestured.js");
  const attempt = (line) => { try { return client.decode(line); } catch (error) { return {refused: error.message}; } };
  const pinch = {type: "gesture", gesture: "pinch", phase: "began", id: 1, seq: 1, time: 1, device: "d", region: null,
                 fingers: 2, location: {x: 0.5, y: 0.5}, scale: 1};
  return {
    messageTypes: [...client.MESSAGE_TYPES], gestureKinds: [...client.GESTURE_KINDS],
    examples: examples.map(attempt), received: received.map(attempt),
    olderPinch: attempt(JSON.stringify(pinch)),
    olderRotate: attempt(JSON.stringify({...pinch, gesture: "rotate", scale: undefined, rotation: 2})),
    pinchWithoutScale: attempt(JSON.stringify({...pinch, scale: undefined})),
    newerType: attempt('{"type":"aura","glow":1}'),
    newerGesture: attempt('{"type":"gesture","gesture":"wave","phase":"ended","id":1,"seq":1,"time":1,"device":"d","region":null,"fingers":1,"location":{"x":0,"y":0}}'),
  };
})(%s, %s)"""

results: List[bool] = []


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def check(description: str, ok: bool, detail: str = "") -> bool:
    results.append(ok)
    print(("ok - " if ok else "FAIL - ") + description + ("" if ok or not detail else "\n    " + detail.replace("\n", "\n    ")), flush=True)
    return ok


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def wait_for(what: str, condition: Callable[[], bool], timeout: float = DEADLINE) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError("timed out waiting for " + what)
        time.sleep(0.05)


def documented_server_lines() -> List[str]:
    """The example lines of docs/protocol.md the daemon sends (the Swift suite's
    DocumentedExamplesTests holds them to the encoder's bytes, one of every message type and
    gesture kind it writes)."""
    blocks = re.findall(r"```json\n(.*?)```", (ROOT / "docs" / "protocol.md").read_text(), flags=re.S)
    lines = [line for block in blocks for line in block.splitlines() if line.strip()]
    return [line for line in lines if json.loads(line)["type"] not in ("subscribe", "ping")]


def comparable(messages: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Gesture and device events without `seq` (numbered per connection: the page also gets touches)."""
    return [{k: v for k, v in m.items() if k != "seq"} for m in messages if m.get("type") in ("gesture", "device")]


class UnixSubscriber:
    """Reads every line the daemon sends to a plain socket client (no subscribe: gestures and devices)."""

    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.messages: List[Dict[str, Any]] = []
        self.ended = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        with self.sock.makefile("r", encoding="utf-8") as lines:
            for line in lines:
                self.messages.append(json.loads(line))
        self.ended.set()


class DevTools:
    """A minimal Chrome DevTools Protocol session on one page target."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.next_id = 0
        self.connection: Any = None

    async def __aenter__(self) -> "DevTools":
        self.connection = await websockets.connect(self.url, max_size=64 << 20)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.connection.close()

    async def call(self, method: str, **params: Any) -> Dict[str, Any]:
        self.next_id += 1
        ident = self.next_id
        await self.connection.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            reply = json.loads(await asyncio.wait_for(self.connection.recv(), DEADLINE))
            if reply.get("id") == ident:
                if "error" in reply:
                    raise RuntimeError(method + ": " + json.dumps(reply["error"]))
                return dict(reply.get("result", {}))

    async def evaluate(self, expression: str) -> Any:
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    async def wait_for(self, what: str, expression: str, timeout: float = DEADLINE) -> Any:
        end = time.monotonic() + timeout
        while True:
            value = await self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > end:
                raise TimeoutError("timed out waiting for the page: " + what)
            await asyncio.sleep(0.05)


async def handshake_status(url: str, origin: Optional[str]) -> int:
    """The HTTP status of a WebSocket handshake (101 when it succeeds)."""
    try:
        async with websockets.connect(url, origin=origin):  # type: ignore[arg-type]
            return 101
    except websockets.exceptions.InvalidStatus as error:
        return int(error.response.status_code)


async def run(gestured: str, gestured_web: str, output: Path, work: Path) -> None:
    daemon_socket = str(work / "gestured.sock")
    daemon_config = work / "gestured.toml"
    daemon_config.write_text(DAEMON_CONFIG)
    web_config = work / "gestured-web.toml"
    web_config.write_text('[web]\ndaemon-config = "%s"\n' % daemon_config)
    port = free_port()
    ipv6 = has_ipv6_loopback()
    base = "http://127.0.0.1:%d" % port
    processes: List[subprocess.Popen[bytes]] = []
    foreign_server: Optional[http.server.ThreadingHTTPServer] = None
    try:
        daemon_log = open(work / "daemon.log", "wb")
        processes.append(subprocess.Popen(
            [gestured, "run", "--replay", str(ROOT / "demo/demo.events"), "--wait-for-subscriber", "--exit-after-replay",
             "--no-devices", "--socket", daemon_socket, "--config", str(daemon_config), "--log-level", "warning"],
            stdout=daemon_log, stderr=subprocess.STDOUT))
        # Socket activation as gestured-web.socket does it: systemd-socket-activate listens on
        # the loopback addresses and starts the bridge on the first connection, passing the
        # listening sockets (LISTEN_FDS); the bridge says READY=1 on $NOTIFY_SOCKET.
        bridge_log_path = work / "gestured-web.log"
        bridge_log = open(bridge_log_path, "wb")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(str(work / "notify.sock"))
        notify.settimeout(DEADLINE)
        listen = ["127.0.0.1:%d" % port] + (["[::1]:%d" % port] if ipv6 else [])
        processes.append(subprocess.Popen(
            ["systemd-socket-activate"] + ["--listen=" + address for address in listen]
            + ["--setenv=NOTIFY_SOCKET=" + str(work / "notify.sock"),
               gestured_web, "--socket", daemon_socket, "--config", str(web_config), "--web-root", str(ROOT / "web")],
            stdout=bridge_log, stderr=subprocess.STDOUT))
        wait_for("the daemon's socket", lambda: os.path.exists(daemon_socket))
        wait_for("systemd-socket-activate's listening socket", lambda: accepts(port))

        # Connected before the page subscribes (which starts the replay), so it sees everything.
        subscriber = UnixSubscriber(daemon_socket)
        wait_for("the subscriber's hello", lambda: bool(subscriber.messages))

        ws_url = "ws://127.0.0.1:%d/ws" % port
        status = await handshake_status(ws_url, "http://evil.example")
        check("a handshake from a foreign origin gets 403", status == 403, "got %d" % status)
        check("the refusal is logged", b"refused GET /ws" in bridge_log_path.read_bytes(), bridge_log_path.read_text())
        status = await handshake_status(ws_url, base)
        check("a handshake from the bridge's own origin is accepted", status == 101, "got %d" % status)
        # The bridge serves the sockets it was passed from the moment it takes them, so a
        # browser's STATUS= may come before READY=1: read datagrams until READY=1 or the deadline.
        notices: list[str] = []

        def says_ready() -> bool:
            return any("READY=1" in notice.split("\n") for notice in notices)

        try:
            while not says_ready():
                notices.append(notify.recv(4096).decode())
        except TimeoutError:
            pass
        check("the socket-activated bridge says READY=1", says_ready(), " | ".join(notices))
        check("it serves on the sockets systemd passed", b"listening on " + listen[0].encode() in bridge_log_path.read_bytes(),
              bridge_log_path.read_text())
        if ipv6:
            status = await handshake_status("ws://[::1]:%d/ws" % port, "http://[::1]:%d" % port)
            check("a handshake on [::1] from that origin is accepted", status == 101, "got %d" % status)
        else:
            print("# IPv6 loopback unavailable here: [::1] not checked")

        # A page from another origin (another port) the browser happens to open.
        foreign_dir = work / "foreign"
        foreign_dir.mkdir()
        (foreign_dir / "index.html").write_text(FOREIGN_PAGE % ws_url)
        handler = functools.partial(QuietHandler, directory=str(foreign_dir))
        foreign_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=foreign_server.serve_forever, daemon=True).start()
        foreign_url = "http://127.0.0.1:%d/index.html" % foreign_server.server_address[1]

        devtools_port = free_port()
        profile = work / "chromium-profile"
        chromium = shutil.which("chromium") or "chromium"
        processes.append(subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             "--hide-scrollbars", "--window-size=1280,800", "--user-data-dir=" + str(profile),
             "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=%d" % devtools_port, "about:blank"],
            stdout=subprocess.DEVNULL, stderr=open(work / "chromium.log", "wb")))

        def page_target() -> Optional[str]:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % devtools_port, timeout=2) as reply:
                    pages = [t for t in json.load(reply) if t.get("type") == "page"]
                    return str(pages[0]["webSocketDebuggerUrl"]) if pages else None
            except OSError:
                return None

        wait_for("Chromium's DevTools", lambda: page_target() is not None)
        target = page_target()
        assert target is not None
        async with DevTools(target) as page:
            await page.call("Page.enable")
            await page.call("Page.navigate", url=foreign_url)
            result = await page.wait_for("the foreign page's WebSocket to close", "window.__result && window.__result.closed && window.__result")
            check("a page from a foreign origin cannot open /ws in Chromium", not result["opened"] and result["messages"] == 0,
                  json.dumps(result))

            await page.call("Page.navigate", url=base + "/?test")
            await page.wait_for("hello", "(window.__gestured_received || []).some(m => m.type === 'hello')")
            # Mid-demo: the pinch is under way (the earlier gestures' labels are still up).
            await page.wait_for("the pinch", "window.__gestured_received.some(m => m.gesture === 'pinch' && m.phase === 'changed')")
            # The JS client's own request for the daemon's counters, through the bridge.
            metrics = await page.call(
                "Runtime.evaluate", expression="window.__gestured_client.metrics().then(m => m.type + ':' + m.inputs.length)",
                awaitPromise=True, returnByValue=True)
            metrics_reply = metrics.get("result", {}).get("value")
            shot = await page.call("Page.captureScreenshot", format="png")
            screenshot = output / "live-view.png"
            screenshot.write_bytes(base64.b64decode(shot["data"]))
            print("screenshot: %s" % screenshot, flush=True)
            page_messages = await page.wait_for(
                "the daemon's goodbye", "window.__gestured_received.some(m => m.type === 'goodbye') && window.__gestured_received")
            wait_for("the subscriber's end", subscriber.ended.is_set)
            examples = documented_server_lines()
            received_lines = [json.dumps(m) for m in subscriber.messages]
            decoding = await page.call(
                "Runtime.evaluate", expression=JS_DECODING % (json.dumps(examples), json.dumps(received_lines)),
                awaitPromise=True, returnByValue=True)
            decoded = decoding.get("result", {}).get("value") or {}
            regions_note = await page.evaluate("document.getElementById('regions-note').textContent")
            devices_text = await page.evaluate("document.getElementById('devices').textContent")

        theirs = comparable(subscriber.messages)
        ours = comparable(page_messages)
        check("the Unix-socket subscriber received the demo's gestures", len(theirs) > 100, "%d events" % len(theirs))
        same = ours == theirs
        detail = ""
        if not same:
            first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
            detail = "page %d events, socket %d; first difference at %d:\n page   %s\n socket %s" % (
                len(ours), len(theirs), first, ours[first] if first < len(ours) else None, theirs[first] if first < len(theirs) else None)
        check("the page received the same gesture and device sequence as the Unix-socket subscriber", same, detail)
        kinds = {(m.get("gesture"), m.get("count")) for m in ours}
        check("the sequence has the demo's double tap, long press, swipe and pinch",
              {("tap", 2), ("long-press", None), ("swipe", None), ("pinch", None)} <= kinds, repr(sorted(kinds, key=str)))
        check("the page received touches (subscribed with touches: true)", any(m.get("type") == "touch" for m in page_messages))
        pinches = [m for m in page_messages if m.get("gesture") == "pinch"]
        check("every pinch carries its velocity, a number", bool(pinches) and all(
            isinstance(m.get("velocity"), (int, float)) for m in pinches), repr(pinches[:1]))
        documented = [json.loads(line) for line in examples]
        check("the JS client decodes exactly the message types the daemon sends",
              set(decoded.get("messageTypes", [])) == {m["type"] for m in documented}, repr(decoded.get("messageTypes")))
        check("the JS client checks every gesture kind's fields",
              set(decoded.get("gestureKinds", [])) == {m["gesture"] for m in documented if m["type"] == "gesture"},
              repr(decoded.get("gestureKinds")))
        check("the JS client decodes every documented message to itself", decoded.get("examples") == documented,
              repr([d for d, m in zip(decoded.get("examples") or [], documented) if d != m][:2]))
        check("the JS client decodes every line the daemon sent a Unix-socket subscriber",
              bool(subscriber.messages) and decoded.get("received") == subscriber.messages,
              repr([d for d in decoded.get("received") or [] if "refused" in d][:2]))
        check("a pinch or rotate without velocity (an older daemon) decodes with velocity 0",
              (decoded.get("olderPinch") or {}).get("velocity") == 0 and (decoded.get("olderRotate") or {}).get("velocity") == 0,
              repr((decoded.get("olderPinch"), decoded.get("olderRotate"))))
        check("a pinch without its scale is refused, naming the field",
              (decoded.get("pinchWithoutScale") or {}).get("refused") == 'a pinch gesture: field "scale" is missing',
              repr(decoded.get("pinchWithoutScale")))
        check("a newer daemon's message type and gesture kind pass as they came",
              decoded.get("newerType") == {"type": "aura", "glow": 1} and (decoded.get("newerGesture") or {}).get("gesture") == "wave",
              repr((decoded.get("newerType"), decoded.get("newerGesture"))))
        check("the JS client's metrics() resolves with the daemon's metrics", metrics_reply == "metrics:1", repr(metrics_reply))
        check("the page lists the configured regions", regions_note == "menu, stage", repr(regions_note))
        check("the page lists the replay device", "ELAN Touchscreen" in (devices_text or ""), repr(devices_text))
        check("the screenshot is a PNG", screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n")
    finally:
        if foreign_server is not None:
            foreign_server.shutdown()
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def main() -> int:
    gestured, gestured_web, output = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    output.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="gestured-web-test."))
    try:
        asyncio.run(run(gestured, gestured_web, output, work))
    except Exception as error:  # a timeout or a crash is a failure with the logs shown
        check("the test ran to the end", False, "%s: %s" % (type(error).__name__, error))
        for log in ("daemon.log", "gestured-web.log"):
            path = work / log
            if path.exists():
                print("--- %s\n%s" % (log, path.read_text(errors="replace")[-4000:]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    failed = results.count(False)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
