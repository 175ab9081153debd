"""Reconnect across real daemon restarts: the gap is always reported (Disconnected, then
Reconnected), the subscription is re-sent, `seq` starts over; the waits follow the
backoff schedule, checked on a virtual clock."""

from __future__ import annotations

import asyncio
from typing import Callable, List

import pytest

import gestured_client as gc
import gestured_client.aio
import gestured_client.client
from conftest import Daemon, Line, assert_same_gestures, demo_arguments

StartDaemon = Callable[..., Daemon]
FAST = gc.Backoff(initial=0.01, maximum=0.1)
FILTER = ["tap", "swipe"]


def split_at_markers(items: List[gc.Item]) -> List[List[gc.Item]]:
    """The items of each connection, in order."""
    connections: List[List[gc.Item]] = [[]]
    for item in items:
        if isinstance(item, gc.Reconnected):
            connections.append([])
        connections[-1].append(item)
    return connections


def check_two_demo_passes(items: List[gc.Item], replayed: List[Line]) -> None:
    expected = [line for line in replayed if line["gesture"] in FILTER]
    first, second = split_at_markers(items)
    for connection in (first, second[1:]):
        assert_same_gestures(connection, expected)
        assert connection[-2:] == [gc.Goodbye("replay finished"), gc.Disconnected("goodbye: replay finished")]
        numbered = [item.seq for item in connection if isinstance(item, (gc.Gesture, gc.Device))]
        assert numbered[0] == 1 and numbered == sorted(numbered), "seq starts over per connection"
    reconnected = second[0]
    assert isinstance(reconnected, gc.Reconnected) and reconnected.attempts == 1
    assert reconnected.hello.server == "gestured"  # the replay device comes with the subscription


def test_sync_reconnects_to_a_restarted_daemon_and_resubscribes(start_daemon: StartDaemon, replayed: List[Line]) -> None:
    first = start_daemon(*demo_arguments())
    items: List[gc.Item] = []
    with gc.connect(first.socket, gestures=FILTER, reconnect=FAST) as client:
        for item in client:
            items.append(item)
            if isinstance(item, gc.Disconnected):
                assert not client.connected
                with pytest.raises(gc.ConnectionLost, match="not connected"):
                    client.ping()
                if sum(isinstance(item, gc.Disconnected) for item in items) == 2:
                    break
                assert first.wait() == 0
                # Ready before the client's first try: it must need exactly one attempt.
                # `--wait-for-subscriber` plays only once the client has re-sent its filters.
                start_daemon(*demo_arguments())
    check_two_demo_passes(items, replayed)


def test_asyncio_reconnects_to_a_restarted_daemon_and_resubscribes(start_daemon: StartDaemon, replayed: List[Line]) -> None:
    first = start_daemon(*demo_arguments())

    async def run() -> List[gc.Item]:
        items: List[gc.Item] = []
        async with gc.aio.connect(first.socket, gestures=FILTER, reconnect=FAST) as client:
            async for item in client:
                items.append(item)
                if isinstance(item, gc.Disconnected):
                    with pytest.raises(gc.ConnectionLost, match="not connected"):
                        await client.ping()
                    if sum(isinstance(item, gc.Disconnected) for item in items) == 2:
                        break
                    assert first.wait() == 0
                    start_daemon(*demo_arguments())
        return items

    check_two_demo_passes(asyncio.run(run()), replayed)


class VirtualClock:
    """Stands in for the client's sleep: records each wait and starts the daemon again
    when the client is about to make attempt `restart_at`."""

    def __init__(self, restart: Callable[[], object], restart_at: int) -> None:
        self.waits: List[float] = []
        self.restart = restart
        self.restart_at = restart_at

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        if len(self.waits) == self.restart_at:
            self.restart()

    async def async_sleep(self, seconds: float) -> None:
        self.sleep(seconds)


def test_sync_retries_on_the_backoff_schedule_after_a_crash(
    start_daemon: StartDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    daemon = start_daemon("--no-devices")
    clock = VirtualClock(lambda: start_daemon("--no-devices"), restart_at=5)
    monkeypatch.setattr(gestured_client.client, "_sleep", clock.sleep)
    with gc.connect(daemon.socket, reconnect=True) as client:
        daemon.kill()  # no goodbye, and a stale socket file: attempts 1 to 4 are refused
        assert next(client) == gc.Disconnected("the daemon closed the connection without a goodbye")
        reconnected = next(client)
        assert isinstance(reconnected, gc.Reconnected) and reconnected.attempts == 5
        assert client.ping().time > 0
    assert clock.waits == [0.1, 0.2, 0.4, 0.8, 1.6]


def test_asyncio_retries_on_the_backoff_schedule_after_a_crash(
    start_daemon: StartDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    daemon = start_daemon("--no-devices")
    clock = VirtualClock(lambda: start_daemon("--no-devices"), restart_at=4)
    monkeypatch.setattr(gestured_client.aio, "_sleep", clock.async_sleep)

    async def run() -> None:
        async with gc.aio.connect(daemon.socket, reconnect=gc.Backoff(initial=1, maximum=3)) as client:
            daemon.kill()
            assert await client.__anext__() == gc.Disconnected("the daemon closed the connection without a goodbye")
            reconnected = await client.__anext__()
            assert isinstance(reconnected, gc.Reconnected) and reconnected.attempts == 4
            assert (await client.status()).clients == 1

    asyncio.run(run())
    assert clock.waits == [1, 2, 3, 3]


def test_a_stopped_daemon_reports_its_goodbye_before_the_gap(start_daemon: StartDaemon) -> None:
    daemon = start_daemon("--no-devices")
    with gc.connect(daemon.socket, reconnect=FAST) as client:
        assert daemon.stop() == 0
        assert next(client) == gc.Goodbye("stopping")
        assert next(client) == gc.Disconnected("goodbye: stopping")
        start_daemon("--no-devices")
        assert isinstance(next(client), gc.Reconnected)
        client.close()
        assert list(client) == []
