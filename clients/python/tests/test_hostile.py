"""What the real daemon never sends, from a scripted server over a real Unix socket:
garbage, oversized lines, silence, a flood. Each gets a clear exception or a clean
recovery, never a crash, a hang or an unbounded buffer."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any, Callable, List, Type, Union

import pytest

import gestured_client as gc
import gestured_client.client
from conftest import HELLO, FakeServer, Peer, gesture_line

StartFake = Callable[[Callable[[Peer], None]], FakeServer]
GOODBYE = '{"type":"goodbye","reason":"stopping"}'


def greet(peer: Peer) -> None:
    peer.send(HELLO)
    peer.answer_subscription()


def serving(*lines: Union[str, bytes]) -> Callable[[Peer], None]:
    """A script: hello, confirm the subscription, send `lines`, hang up."""

    def script(peer: Peer) -> None:
        greet(peer)
        for line in lines:
            peer.send_raw(line if isinstance(line, bytes) else line.encode() + b"\n")

    return script


APIS = ["sync", "aio"]


def outcomes(api: str, path: str, **options: Any) -> List[Any]:
    """Each step of an iteration, through the sync client or the asyncio one driven step
    by step: the item, or the exception raised (iteration goes on after a
    ProtocolError), up to the end."""
    loop = asyncio.new_event_loop()
    step: Callable[[], Any]
    end: Type[Exception]
    close: Callable[[], Any] = loop.close
    steps: List[Any] = []
    try:
        if api == "sync":
            client = gc.connect(path, **options)
            step, close, end = client.__next__, client.close, StopIteration
        else:
            async_client = loop.run_until_complete(gc.aio.connect(path, **options))
            step = lambda: loop.run_until_complete(async_client.__anext__())  # noqa: E731
            close = lambda: loop.run_until_complete(async_client.close())  # noqa: E731
            end = StopAsyncIteration
        while True:
            try:
                steps.append(step())
            except end:
                return steps
            except gc.ProtocolError as error:
                steps.append(error)
            except gc.ConnectionLost as error:
                steps.append(error)
                return steps
    finally:
        close()
        loop.close()


def kinds(steps: List[Any]) -> List[str]:
    return [type(step).__name__ for step in steps]


@pytest.mark.parametrize("api", APIS)
def test_a_garbage_line_is_an_error_and_the_stream_goes_on(api: str, fake_server: StartFake) -> None:
    server = fake_server(serving(gesture_line(1), "}{ not json", '{"type":"gesture","gesture":"tap"}',
                                 b"\xff\xfe\n", gesture_line(2), GOODBYE))
    steps = outcomes(api, server.path)
    assert kinds(steps) == ["Tap", "ProtocolError", "ProtocolError", "ProtocolError", "Tap", "Goodbye"]
    assert steps[1].line == "}{ not json" and "not JSON" in str(steps[1])
    assert steps[2].problem == 'a gesture line lacks the field "phase"'
    assert steps[3].line == b"\xff\xfe"
    assert steps[4].seq == 2


@pytest.mark.parametrize("api", APIS)
def test_a_line_of_megabytes_is_skipped_without_keeping_it(api: str, fake_server: StartFake) -> None:
    huge = b'{"type":"goodbye","reason":"' + b"x" * (3 << 20) + b'"}\n'
    server = fake_server(serving(huge, gesture_line(1), GOODBYE))
    steps = outcomes(api, server.path)
    assert kinds(steps) == ["ProtocolError", "Tap", "Goodbye"]
    assert "longer than 1048576 bytes" in str(steps[0]) and len(steps[0].line) == 1 << 20


@pytest.mark.parametrize("api", APIS)
def test_new_types_and_fields_pass_through_a_client_that_does_not_know_them(api: str, fake_server: StartFake) -> None:
    server = fake_server(serving('{"type":"heartbeat","every":30}', gesture_line(1, pressure=0.5),
                                 '{"type":"error","message":"notice"}', GOODBYE, '{"type":"late"}'))
    steps = outcomes(api, server.path)
    assert kinds(steps) == ["Unknown", "Tap", "ErrorMessage", "Goodbye", "Unknown"]
    assert steps[0].fields == {"type": "heartbeat", "every": 30}


@pytest.mark.parametrize("api", APIS)
def test_a_connection_cut_mid_line_is_reported(api: str, fake_server: StartFake) -> None:
    server = fake_server(serving(gesture_line(1), b'{"type":"gest'))
    steps = outcomes(api, server.path)
    assert kinds(steps) == ["Tap", "ProtocolError", "ConnectionLost"]
    assert "ended in the middle of a line" in str(steps[1]) and "without a goodbye" in str(steps[2])


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(
    "first_line, problem",
    [
        (gesture_line(1), gc.ProtocolError),
        ('{"type":"error","message":"permission denied"}', gc.GesturedUnavailable),
        (HELLO.replace('"protocol":1', '"protocol":2'), gc.ProtocolError),
        ('{"type":"hello","protocol":1}', gc.ProtocolError),
        ("", gc.GesturedUnavailable),
    ],
    ids=["no-hello", "refused", "protocol-2", "bad-hello", "hang-up"],
)
def test_a_bad_greeting_fails_connect_clearly(api: str, first_line: str, problem: type, fake_server: StartFake) -> None:
    server = fake_server(lambda peer: peer.send(first_line) if first_line else None)
    with pytest.raises(problem) as raised:
        outcomes(api, server.path)
    if problem is gc.GesturedUnavailable:
        assert str(raised.value).startswith(f"gestured is not available at {server.path}: ")


def silent(peer: Peer) -> None:
    peer.request()  # until the client hangs up


@pytest.mark.parametrize("api", APIS)
def test_a_server_that_never_greets_times_out(api: str, fake_server: StartFake) -> None:
    server = fake_server(silent)
    with pytest.raises(TimeoutError, match="sent no hello within 0.2 s"):
        outcomes(api, server.path, timeout=0.2)


def no_pong(peer: Peer) -> None:
    greet(peer)
    while peer.request() is not None:
        pass  # never answers


def test_a_reply_that_never_comes_times_out_and_drops_the_connection(fake_server: StartFake) -> None:
    server = fake_server(no_pong)
    with gc.connect(server.path, timeout=0.2) as client:
        with pytest.raises(TimeoutError, match="no reply to ping within 0.2 s"):
            client.ping()
        assert not client.connected
        with pytest.raises(gc.ConnectionLost, match="no reply to ping within 0.2 s"):
            next(client)

    async def run() -> None:
        async with gc.aio.connect(server.path, timeout=0.2) as client:
            with pytest.raises(TimeoutError, match="no reply to status within 0.2 s"):
                await client.status()
            with pytest.raises(gc.ConnectionLost, match="no reply to status within 0.2 s"):
                await client.__anext__()

    asyncio.run(run())


FLOOD = 5000


def flood(peer: Peer) -> None:
    """Floods events before answering the next ping, then says goodbye."""
    greet(peer)
    peer.send_raw("".join(gesture_line(seq) + "\n" for seq in range(1, FLOOD + 1)).encode())
    assert peer.request() == {"type": "ping"}
    peer.send('{"type":"pong","time":2}', GOODBYE)


def check_flood(steps: List[Any]) -> None:
    """The buffer kept the newest 1024 events and said how many older ones it dropped."""
    assert steps[0] == gc.Overflow(FLOOD - 1024)
    assert [step.seq for step in steps[1:-1]] == list(range(FLOOD - 1023, FLOOD + 1))
    assert steps[-1] == gc.Goodbye("stopping")


def test_events_arriving_while_waiting_for_a_reply_are_bounded(fake_server: StartFake) -> None:
    server = fake_server(flood)
    with gc.connect(server.path) as client:
        assert client.ping() == gc.Pong(2)
        check_flood(list(client))

    async def run() -> List[gc.Item]:
        async with gc.aio.connect(server.path) as client:
            assert await client.ping() == gc.Pong(2)
            return [item async for item in client]

    check_flood(asyncio.run(run()))


def test_close_from_another_thread_ends_a_blocked_iteration(fake_server: StartFake) -> None:
    server = fake_server(no_pong)
    client = gc.connect(server.path)
    closer = threading.Timer(0.1, client.close)
    closer.start()
    assert list(client) == []
    closer.join()


def test_garbage_from_a_server_during_reconnect_is_retried(fake_server: StartFake, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reconnecting client keeps trying through attempts that fail on a bad greeting."""
    attempts: List[int] = []

    def flaky(peer: Peer) -> None:
        attempts.append(1)
        if len(attempts) == 1:
            greet(peer)  # the first connection, then hang up
        elif len(attempts) < 4:
            peer.send("garbage")
        else:
            serving(gesture_line(1))(peer)

    monkeypatch.setattr(gestured_client.client, "_sleep", lambda seconds: None)
    server = fake_server(flaky)
    with gc.connect(server.path, reconnect=True) as client:
        assert next(client) == gc.Disconnected("the daemon closed the connection without a goodbye")
        reconnected = next(client)
        assert isinstance(reconnected, gc.Reconnected) and reconnected.attempts == 3
        assert isinstance(next(client), gc.Tap)
    assert len(attempts) == 4


def garbage_before_pong(peer: Peer) -> None:
    greet(peer)
    assert peer.request() == {"type": "ping"}
    peer.send("garbage", gesture_line(1), '{"type":"pong","time":3}', GOODBYE)


@pytest.mark.parametrize("api", APIS)
def test_a_bad_line_while_waiting_for_a_reply_waits_its_turn_in_the_iteration(api: str, fake_server: StartFake) -> None:
    server = fake_server(garbage_before_pong)
    if api == "sync":
        with gc.connect(server.path) as client:
            assert client.ping() == gc.Pong(3)
            steps: List[Any] = []
            for _ in range(2):
                try:
                    steps.append(next(client))
                except gc.ProtocolError as error:
                    steps.append(error)
            steps += list(client)
    else:
        async def run() -> List[Any]:
            async with gc.aio.connect(server.path) as client:
                assert await client.ping() == gc.Pong(3)
                result: List[Any] = []
                for _ in range(2):
                    try:
                        result.append(await client.__anext__())
                    except gc.ProtocolError as error:
                        result.append(error)
                return result + [item async for item in client]

        steps = asyncio.run(run())
    assert kinds(steps) == ["ProtocolError", "Tap", "Goodbye"]


def reset(peer: Peer) -> None:
    """Hangs up with the client's request unread: the kernel answers with a reset."""
    greet(peer)
    peer.connection.recv(1, socket.MSG_PEEK)


@pytest.mark.parametrize("api", APIS)
def test_a_reset_connection_is_a_lost_connection_not_an_os_error(api: str, fake_server: StartFake) -> None:
    server = fake_server(reset)

    async def run() -> None:
        async with gc.aio.connect(server.path) as client:
            await client.ping()

    with pytest.raises(gc.ConnectionLost) as raised:
        if api == "sync":
            with gc.connect(server.path) as client:
                client.ping()
        else:
            asyncio.run(run())
    assert str(raised.value) == "connection to gestured lost: Connection reset by peer"


def events_before_the_subscription(peer: Peer) -> None:
    """What the daemon sends before it has read the client's subscribe: everything."""
    peer.send(HELLO, gesture_line(1, gesture="press"), gesture_line(2, device="Other"), gesture_line(3),
              '{"type":"device","phase":"added","seq":4,"time":1,"device":"Other","kind":"touchscreen","path":null}')
    peer.answer_subscription()
    peer.send(gesture_line(5), GOODBYE)


@pytest.mark.parametrize("api", APIS)
def test_events_sent_before_the_daemon_read_the_filters_are_filtered_too(api: str, fake_server: StartFake) -> None:
    server = fake_server(events_before_the_subscription)
    steps = outcomes(api, server.path, gestures=["tap"], devices=["Fake"])
    assert [(type(step).__name__, getattr(step, "seq", None)) for step in steps] == [
        ("Tap", 3), ("Tap", 5), ("Goodbye", None)
    ]
