"""Fixtures: the real daemon on a private socket, the lines `gestured replay` prints, and a
scripted fake server over a real Unix socket for what the daemon never does."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Union

import pytest

import gestured_client as gc

REPO = Path(__file__).resolve().parents[3]
DEMO = REPO / "demo" / "demo.events"
#: Replay speed for the demo (10.6 s of touches): fast, and the same gestures as at 1×.
SPEED = "20"
#: Upper bound for waits on real processes; only a hung test ever reaches it.
PATIENCE = 60.0

Line = Dict[str, Any]


def gestured_binary() -> Path:
    """`$GESTURED_BIN`, else the debug build of this checkout (`swift build --show-bin-path`)."""
    configured = os.environ.get("GESTURED_BIN")
    if configured:
        binary = Path(configured)
    else:
        bin_path = subprocess.run(
            ["swift", "build", "--show-bin-path"], cwd=REPO, check=True, capture_output=True, text=True
        ).stdout.strip()
        binary = Path(bin_path) / "gestured"
    if not binary.is_file():
        pytest.fail(f"no gestured binary at {binary}: run `swift build --product gestured` first (or set GESTURED_BIN)")
    return binary


@pytest.fixture(scope="session")
def gestured() -> Path:
    return gestured_binary()


def replay_lines(gestured: Path, *arguments: str) -> List[Line]:
    """What `gestured replay … demo/demo.events` prints, one dict per line."""
    output = subprocess.run(
        [str(gestured), "replay", *arguments, str(DEMO)], check=True, capture_output=True, text=True
    ).stdout
    return [json.loads(line) for line in output.splitlines()]


@pytest.fixture(scope="session")
def replayed(gestured: Path) -> List[Line]:
    return replay_lines(gestured)


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A private directory with a short path (a socket path must fit in 108 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="gc-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


class Daemon:
    """`gestured run` on a private socket; ready once it has said READY=1 on its
    NOTIFY_SOCKET (what systemd waits for), so nothing polls or sleeps."""

    def __init__(self, binary: Path, socket_path: Path, arguments: List[str], workdir: Path, name: str) -> None:
        self.socket = str(socket_path)
        self.log = workdir / f"{name}.log"
        notify_path = workdir / f"{name}.notify"
        self._notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._notify.bind(str(notify_path))
        environment = dict(os.environ, NOTIFY_SOCKET=str(notify_path))
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [str(binary), "run", "--socket", self.socket, "--log-level", "notice", *arguments],
                env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
            )
        self._wait_ready()

    def _wait_ready(self) -> None:
        self._notify.settimeout(PATIENCE)
        try:
            while b"READY=1" not in self._notify.recv(4096).split(b"\n"):
                pass
        except socket.timeout:
            self.kill()
            pytest.fail(f"gestured did not become ready: {self.log.read_text()}")
        finally:
            self._notify.close()

    def stop(self) -> int:
        """SIGTERM (what systemd sends), then its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.wait()

    def kill(self) -> None:
        """SIGKILL: no goodbye, the socket file left behind (a crash, a watchdog abort)."""
        if self.process.poll() is None:
            self.process.kill()
        self.wait()

    def wait(self) -> int:
        return self.process.wait(timeout=PATIENCE)


@pytest.fixture
def start_daemon(gestured: Path, workdir: Path) -> Iterator[Callable[..., Daemon]]:
    """Starts daemons on `workdir/s.sock` (the same path each time, as after a restart);
    every one is stopped at the end of the test."""
    daemons: List[Daemon] = []

    def start(*arguments: str) -> Daemon:
        daemon = Daemon(gestured, workdir / "s.sock", list(arguments), workdir, f"daemon{len(daemons)}")
        daemons.append(daemon)
        return daemon

    yield start
    for daemon in daemons:
        daemon.kill()


# --------------------------------------------------------------------------- comparison


def plain(value: Any) -> Any:
    """An attribute as JSON would hold it: points as dicts, enums as their strings."""
    if isinstance(value, gc.Point):
        return {"x": value.x, "y": value.y}
    if isinstance(value, Enum):
        return value.value
    return value


def assert_same(message: gc.Message, line: Line, ignoring: tuple[str, ...] = ()) -> None:
    """`message` holds exactly the fields of `line` (attribute `local_location` for key
    `localLocation` …), by an oracle that does not use the client's encoder."""
    assert message.TYPE == line["type"], (message, line)
    for key, value in line.items():
        if key == "type" or key in ignoring:
            continue
        attribute = re.sub(r"[A-Z]", lambda capital: "_" + capital.group().lower(), key)
        assert plain(getattr(message, attribute)) == value, (key, message, line)
    for field in dataclasses.fields(message):
        key = re.sub(r"_([a-z])", lambda letter: letter.group(1).upper(), field.name)
        assert getattr(message, field.name) is None or key in line, (key, message, line)


def assert_same_gestures(items: List[gc.Item], expected: List[Line]) -> None:
    """The gestures of `items` are `expected` but for `seq` and `time`, whose spacing
    is the recording's (`run --replay` shifts times by one constant)."""
    gestures = [item for item in items if isinstance(item, gc.Gesture)]
    assert len(gestures) == len(expected)
    for gesture, line in zip(gestures, expected):
        assert_same(gesture, line, ignoring=("seq", "time"))
        assert gesture.time - gestures[0].time == line["time"] - expected[0]["time"]


def demo_arguments(*extra: str) -> List[str]:
    """`run` arguments that play the demo once a client subscribes, then say goodbye and exit."""
    return ["--replay", str(DEMO), "--speed", SPEED, "--wait-for-subscriber", "--exit-after-replay", *extra]


# --------------------------------------------------------------------------- fake server

HELLO = '{"type":"hello","protocol":1,"server":"gestured","version":"0.1.0","devices":[]}'


def gesture_line(seq: int, gesture: str = "tap", **extra: Any) -> str:
    line: Line = {
        "type": "gesture", "gesture": gesture, "phase": "ended", "id": seq, "seq": seq, "time": 1000 * seq,
        "device": "Fake", "region": None, "fingers": 1, "location": {"x": 0.5, "y": 0.5}, "count": 1,
    }
    line.update(extra)
    return json.dumps(line)


class Peer:
    """The server's side of one fake connection."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self._reader = connection.makefile("rb")

    def send(self, *lines: Union[str, bytes]) -> None:
        for line in lines:
            data = line if isinstance(line, bytes) else line.encode()
            self.connection.sendall(data if data.endswith(b"\n") else data + b"\n")

    def send_raw(self, data: bytes) -> None:
        self.connection.sendall(data)

    def request(self) -> Optional[Line]:
        """The next request line, or None at the end of the stream."""
        line = self._reader.readline()
        return json.loads(line) if line else None

    def answer_subscription(self) -> Line:
        """Reads `subscribe` + `ping` (how the client confirms its filters) and pongs."""
        subscribe, ping = self.request(), self.request()
        assert subscribe is not None and subscribe["type"] == "subscribe", subscribe
        assert ping == {"type": "ping"}, ping
        self.send('{"type":"pong","time":1}')
        return subscribe

    def close(self) -> None:
        self._reader.close()
        self.connection.close()


class FakeServer:
    """A real Unix socket whose every connection runs `script(peer)` on a thread: for
    protocol edges (garbage, hostility) the real daemon never produces."""

    def __init__(self, path: Path, script: Callable[[Peer], None]) -> None:
        self.path = str(path)
        self.script = script
        self.errors: List[BaseException] = []
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(8)
        self.threads: List[threading.Thread] = []
        self.peers: List[Peer] = []
        self.acceptor = threading.Thread(target=self._accept, daemon=True)
        self.acceptor.start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            peer = Peer(connection)
            self.peers.append(peer)
            thread = threading.Thread(target=self._run, args=(peer,), daemon=True)
            self.threads.append(thread)
            thread.start()

    def _run(self, peer: Peer) -> None:
        try:
            self.script(peer)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client went first: fine for a script that outlives it
        except BaseException as error:  # reported by stop()
            self.errors.append(error)
        finally:
            peer.close()

    def stop(self) -> None:
        """Closes the socket, wakes every script still waiting for the client, and
        re-raises the first failure of a script."""
        self.listener.close()
        os.unlink(self.path)
        for peer in self.peers:
            try:
                peer.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for thread in self.threads:
            thread.join(PATIENCE)
        if self.errors:
            raise self.errors[0]


@pytest.fixture
def fake_server(workdir: Path) -> Iterator[Callable[[Callable[[Peer], None]], FakeServer]]:
    servers: List[FakeServer] = []

    def start(script: Callable[[Peer], None]) -> FakeServer:
        server = FakeServer(workdir / f"fake{len(servers)}.sock", script)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
