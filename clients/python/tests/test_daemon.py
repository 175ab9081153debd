"""Both clients against the real daemon: `gestured run --replay demo/demo.events` on a
private socket must deliver exactly what `gestured replay` prints, filtered as asked."""

from __future__ import annotations

import asyncio
import errno
import socket
from pathlib import Path
from typing import Any, Callable, List, Optional

import pytest

import gestured_client as gc
from conftest import DEMO, SPEED, Daemon, Line, assert_same_gestures, demo_arguments, replay_lines

StartDaemon = Callable[..., Daemon]
APIS = ["sync", "aio"]


def receive_all(api: str, path: str, **options: Any) -> List[gc.Item]:
    """Everything iteration yields until it stops, through the sync or the asyncio client."""
    if api == "sync":
        with gc.connect(path, **options) as client:
            return list(client)

    async def run() -> List[gc.Item]:
        async with gc.aio.connect(path, **options) as client:
            return [item async for item in client]

    return asyncio.run(run())


@pytest.mark.parametrize("api", APIS)
def test_the_client_receives_exactly_what_replay_prints(api: str, start_daemon: StartDaemon, replayed: List[Line]) -> None:
    daemon = start_daemon(*demo_arguments())
    items = receive_all(api, daemon.socket)
    assert_same_gestures(items, replayed)
    added = items[0]
    assert isinstance(added, gc.Device)
    assert (added.phase, added.seq, added.device, added.kind, added.path) == (
        gc.DevicePhase.ADDED, 1, "ELAN Touchscreen", gc.DeviceKind.REPLAY, str(DEMO)
    )
    removed = items[-2]
    assert isinstance(removed, gc.Device) and removed.phase is gc.DevicePhase.REMOVED
    assert items[-1] == gc.Goodbye("replay finished")
    numbered = [item for item in items if isinstance(item, (gc.Gesture, gc.Device))]
    assert [item.seq for item in numbered] == list(range(1, len(numbered) + 1))
    assert len(numbered) == len(items) - 1, "nothing but events and the goodbye"
    pinches = [item for item in items if isinstance(item, gc.Pinch)]
    assert any(pinch.velocity != 0 for pinch in pinches), "the demo's pinch arrives with its velocity"
    assert daemon.wait() == 0


REGION_CONFIG = '[[region]]\nname = "left"\nrect = [0.0, 0.0, 0.5, 1.0]\n'


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(
    "filters, wanted",
    [
        ({"gestures": ["tap", "swipe"]}, lambda line: line["gesture"] in ("tap", "swipe")),
        ({"regions": ["left"], "gestures": [gc.GestureKind.DRAG, "press"]},
         lambda line: line["region"] == "left" and line["gesture"] in ("drag", "press")),
        ({"regions": [None]}, lambda line: line["region"] is None),
        ({"devices": ["ELAN Touchscreen"], "regions": ["left", None]}, lambda line: True),
        ({"devices": ["Another Touchscreen"]}, lambda line: False),
    ],
    ids=["gestures", "region-and-gestures", "outside-regions", "device", "other-device"],
)
def test_subscribe_filters_are_honoured(
    api: str, filters: Any, wanted: Callable[[Line], bool], start_daemon: StartDaemon, gestured: Path, workdir: Path
) -> None:
    config = workdir / "regions.toml"
    config.write_text(REGION_CONFIG)
    expected = [line for line in replay_lines(gestured, "--config", str(config)) if wanted(line)]
    assert any(line["region"] == "left" for line in replay_lines(gestured, "--config", str(config)))
    daemon = start_daemon(*demo_arguments("--config", str(config)))
    items = receive_all(api, daemon.socket, **filters)
    assert_same_gestures(items, expected)
    devices = [item for item in items if isinstance(item, gc.Device)]
    assert len(devices) == (0 if filters.get("devices") == ["Another Touchscreen"] else 2)
    assert items[-1] == gc.Goodbye("replay finished")


@pytest.mark.parametrize("api", APIS)
def test_touches_come_only_when_asked_for(api: str, start_daemon: StartDaemon) -> None:
    daemon = start_daemon(*demo_arguments())
    items = receive_all(api, daemon.socket, gestures=[], touches=True)
    touches = [item for item in items if isinstance(item, gc.Touch)]
    assert not any(isinstance(item, gc.Gesture) for item in items)
    assert touches and all(touch.device == "ELAN Touchscreen" for touch in touches)
    for contact in {touch.touch for touch in touches}:
        phases = [touch.phase for touch in touches if touch.touch == contact]
        assert phases[0] is gc.TouchPhase.BEGAN and phases[-1] is gc.TouchPhase.ENDED
        assert set(phases[1:-1]) <= {gc.TouchPhase.MOVED}


def looping_demo(start_daemon: StartDaemon) -> Daemon:
    """The demo played over and over (the daemon stays up while requests are made)."""
    return start_daemon("--replay", str(DEMO), "--speed", SPEED, "--wait-for-subscriber", "--loop")


def first_pass(items: List[gc.Item], replayed: List[Line]) -> List[gc.Item]:
    """`items` up to the last gesture of the first pass through the demo."""
    gestures = [index for index, item in enumerate(items) if isinstance(item, gc.Gesture)]
    return items[: gestures[len(replayed) - 1] + 1]


def test_ping_and_status_between_events_lose_none_of_them(start_daemon: StartDaemon, replayed: List[Line]) -> None:
    daemon = looping_demo(start_daemon)
    items: List[gc.Item] = []
    with gc.connect(daemon.socket) as client:
        assert client.hello.server == "gestured" and client.hello.protocol == 1
        for item in client:
            items.append(item)
            if sum(isinstance(item, gc.Gesture) for item in items) == len(replayed):
                break
            if len(items) % 25 == 0:
                assert client.ping().time > 0
                status = client.status()
                assert status.clients == 1 and status.version == client.hello.version
    assert_same_gestures(items, replayed)


def test_asyncio_requests_from_another_task_while_one_iterates(start_daemon: StartDaemon, replayed: List[Line]) -> None:
    daemon = looping_demo(start_daemon)

    async def run() -> List[gc.Item]:
        async with gc.aio.connect(daemon.socket) as client:
            items: List[gc.Item] = []

            async def iterate() -> None:
                async for item in client:
                    items.append(item)
                    if sum(isinstance(item, gc.Gesture) for item in items) == len(replayed):
                        return

            reader = asyncio.ensure_future(iterate())
            for _ in range(5):
                assert (await client.ping()).time > 0
                assert (await client.status()).protocol == 1
            await reader
            return items

    assert_same_gestures(first_pass(asyncio.run(run()), replayed), replayed)


@pytest.mark.parametrize("api", APIS)
def test_status_reports_the_daemon(api: str, start_daemon: StartDaemon) -> None:
    daemon = start_daemon("--no-devices")

    async def via_asyncio() -> tuple[gc.Hello, gc.Pong, gc.Status]:
        async with gc.aio.connect(daemon.socket) as client:
            return client.hello, await client.ping(), await client.status()

    if api == "sync":
        with gc.connect(daemon.socket) as client:
            hello, pong, status = client.hello, client.ping(), client.status()
    else:
        hello, pong, status = asyncio.run(via_asyncio())
    assert hello == gc.Hello(1, "gestured", status.version, ())
    assert pong.time > 0
    assert (status.protocol, status.devices, status.clients, status.max_clients) == (1, (), 1, 64)
    assert status.counters.connections >= 1 and status.counters.dropped == 0


@pytest.mark.parametrize("api", APIS)
def test_a_filter_the_daemon_refuses_is_an_error_at_connect(api: str, start_daemon: StartDaemon) -> None:
    daemon = start_daemon("--no-devices")
    with pytest.raises(gc.RequestError) as raised:
        receive_all(api, daemon.socket, gestures=["tap", "wave"])
    assert raised.value.message.startswith('unknown gesture "wave" (known: press, tap')


@pytest.mark.parametrize("api", APIS)
def test_no_daemon_is_unavailable_with_the_path_and_errno(api: str, workdir: Path) -> None:
    path = str(workdir / "absent.sock")
    with pytest.raises(gc.GesturedUnavailable) as raised:
        receive_all(api, path)
    assert raised.value.errno == errno.ENOENT and raised.value.path == path
    assert str(raised.value) == f"gestured is not available at {path}: [Errno 2] No such file or directory"

    stale = workdir / "stale.sock"
    leftover = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    leftover.bind(str(stale))  # a socket file nothing listens on (a crashed daemon's)
    leftover.close()
    with pytest.raises(gc.GesturedUnavailable) as raised:
        receive_all(api, str(stale))
    assert raised.value.errno == errno.ECONNREFUSED and "Connection refused" in str(raised.value)


@pytest.mark.parametrize("api", APIS)
def test_a_daemon_at_its_client_limit_refuses_clearly(api: str, start_daemon: StartDaemon, workdir: Path) -> None:
    config = workdir / "one.toml"
    config.write_text("[daemon]\nmax-clients = 1\n")
    daemon = start_daemon("--no-devices", "--config", str(config))
    with gc.connect(daemon.socket):
        with pytest.raises(gc.GesturedUnavailable) as raised:
            receive_all(api, daemon.socket)
    assert raised.value.reason == "refused by the daemon: too many clients (limit 1)"
    assert raised.value.errno is None


@pytest.mark.parametrize("api", APIS)
def test_a_stopping_daemon_says_goodbye_and_iteration_ends(api: str, start_daemon: StartDaemon) -> None:
    daemon = start_daemon("--no-devices")

    async def via_asyncio() -> List[gc.Item]:
        async with gc.aio.connect(daemon.socket) as client:
            assert daemon.stop() == 0
            return [item async for item in client]

    if api == "sync":
        with gc.connect(daemon.socket) as client:
            assert daemon.stop() == 0
            items = list(client)
    else:
        items = asyncio.run(via_asyncio())
    assert items == [gc.Goodbye("stopping")]


@pytest.mark.parametrize("api", APIS)
def test_a_killed_daemon_is_a_lost_connection_not_a_quiet_end(api: str, start_daemon: StartDaemon) -> None:
    daemon = start_daemon("--no-devices")

    async def via_asyncio() -> Optional[gc.Item]:
        async with gc.aio.connect(daemon.socket) as client:
            daemon.kill()
            async for item in client:
                return item
        return None

    with pytest.raises(gc.ConnectionLost, match="without a goodbye"):
        if api == "sync":
            with gc.connect(daemon.socket) as client:
                daemon.kill()
                next(client)
        else:
            asyncio.run(via_asyncio())



@pytest.mark.parametrize("api", APIS)
def test_metrics_count_the_gestures_a_subscriber_received(api: str, start_daemon: StartDaemon, replayed: List[Line]) -> None:
    """After one pass of the demo, the `metrics` reply counts exactly its gestures by kind
    and phase, and one device with touch-downs and a last touch."""
    daemon = start_daemon("--replay", str(DEMO), "--speed", SPEED, "--wait-for-subscriber")

    def count_until_done(client_items: Any) -> int:
        seen = 0
        for item in client_items:
            if isinstance(item, gc.Gesture):
                seen += 1
                if seen == len(replayed):
                    return seen
        return seen

    async def via_asyncio() -> gc.Metrics:
        async with gc.aio.connect(daemon.socket) as client:
            seen = 0
            async for item in client:
                if isinstance(item, gc.Gesture):
                    seen += 1
                    if seen == len(replayed):
                        break
            return await client.metrics()

    if api == "sync":
        with gc.connect(daemon.socket) as client:
            assert count_until_done(client) == len(replayed)
            metrics = client.metrics()
    else:
        metrics = asyncio.run(via_asyncio())
    expected: dict[tuple[str, str], int] = {}
    for line in replayed:
        key = (line["gesture"], line["phase"])
        expected[key] = expected.get(key, 0) + 1
    counted: dict[tuple[str, str], int] = {}
    for series in metrics.gestures:
        assert series.device == "ELAN Touchscreen"
        for count in series.counts:
            key = (count.gesture.value, count.phase.value)
            counted[key] = counted.get(key, 0) + count.count
    assert counted == expected
    assert [inputs.device for inputs in metrics.inputs] == ["ELAN Touchscreen"]
    assert metrics.inputs[0].touches > 0 and metrics.inputs[0].syn_dropped == 0
    assert metrics.last_touch is not None and metrics.clients == 1
    assert metrics.latency.count > 0 and metrics.latency.buckets[-1].count <= metrics.latency.count
