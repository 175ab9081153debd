"""The I/O-free core both clients share: framing, the handshake, reply matching, the
bounded buffer and the reconnect schedule, driven directly, bytes in and messages out."""

from __future__ import annotations

import itertools
from typing import List

import pytest

import gestured_client as gc
from conftest import HELLO, gesture_line
from gestured_client._session import EventBuffer, LineBuffer, Session, _End, _Raise, ending, unwrap


def drain(session: Session) -> List[gc.ServerMessage]:
    messages = []
    while (message := session.next_message()) is not None:
        messages.append(message)
    return messages


def greeted_session() -> Session:
    session = Session("/test.sock")
    session.receive(HELLO.encode() + b"\n")
    assert drain(session) == [] and session.hello is not None
    return session


def test_lines_split_anywhere_are_put_back_together() -> None:
    data = (HELLO + "\n" + gesture_line(1) + "\n\n" + gesture_line(2) + "\n").encode()
    session = Session("/test.sock")
    messages: List[gc.ServerMessage] = []
    for offset in range(0, len(data), 7):
        session.receive(data[offset : offset + 7])
        messages += drain(session)
    assert [m.seq for m in messages if isinstance(m, gc.Tap)] == [1, 2]


def test_a_line_too_long_is_reported_once_and_skipped() -> None:
    buffer = LineBuffer(max_line=10)
    buffer.feed(b"0123456789abc")
    with pytest.raises(gc.ProtocolError, match="longer than 10 bytes"):
        buffer.next_line()
    buffer.feed(b"more of the same line")
    assert buffer.next_line() is None  # still inside the long line: discarded, not kept
    buffer.feed(b" end\nshort\n")
    assert buffer.next_line() == b"short"
    buffer.feed(b"01234567890123\nok\n")  # too long, but complete in one piece
    with pytest.raises(gc.ProtocolError):
        buffer.next_line()
    assert buffer.next_line() == b"ok"
    assert buffer.next_line() is None


def test_the_stream_ending_mid_line_is_an_error() -> None:
    session = greeted_session()
    session.receive(b'{"type":"goodbye","rea')
    assert drain(session) == []
    session.receive(b"")
    with pytest.raises(gc.ProtocolError, match="ended in the middle of a line") as raised:
        session.next_message()
    assert raised.value.line == b'{"type":"goodbye","rea'
    assert session.next_message() is None and session.eof


def test_the_first_line_must_be_a_hello_of_protocol_1() -> None:
    refused = Session("/run/g.sock")
    refused.receive(b'{"type":"error","message":"too many clients (limit 64)"}\n')
    with pytest.raises(gc.GesturedUnavailable) as raised:
        refused.next_message()
    assert str(raised.value) == "gestured is not available at /run/g.sock: refused by the daemon: too many clients (limit 64)"
    assert raised.value.errno is None

    stranger = Session("/run/g.sock")
    stranger.receive(gesture_line(1).encode() + b"\n")
    with pytest.raises(gc.ProtocolError, match="the first line is not a hello"):
        stranger.next_message()

    future = Session("/run/g.sock")
    future.receive(HELLO.replace('"protocol":1', '"protocol":2').encode() + b"\n")
    with pytest.raises(gc.ProtocolError, match="speaks protocol 2; this client speaks 1"):
        future.next_message()


def test_replies_are_matched_in_order_and_events_pass_between_them() -> None:
    session = greeted_session()
    ping_bytes, ping = session.request(gc.Ping())
    status_bytes, status = session.request(gc.StatusRequest())
    assert ping_bytes == b'{"type":"ping"}\n' and status_bytes == b'{"type":"status"}\n'
    session.receive((gesture_line(1) + '\n{"type":"pong","time":7}\n' + gesture_line(2) + "\n").encode())
    assert [m.seq for m in drain(session) if isinstance(m, gc.Tap)] == [1, 2]
    assert ping.done and ping.result() == gc.Pong(7) and not status.done
    session.receive(b'{"type":"error","message":"busy"}\n')
    assert drain(session) == [] and status.done
    with pytest.raises(gc.RequestError, match="busy"):
        status.result()
    assert not session.waiting_for_reply


def test_a_subscription_is_confirmed_by_the_pong_after_it() -> None:
    session = greeted_session()
    data, accepted = session.request(gc.Subscribe.of(gestures=["tap"]))
    assert data == b'{"type":"subscribe","gestures":["tap"],"touches":false}\n{"type":"ping"}\n'
    session.receive(b'{"type":"pong","time":1}\n')
    assert drain(session) == [] and accepted.result() == gc.Pong(1)

    _, refused = session.request(gc.Subscribe.of(gestures=["wave"]))
    session.receive(b'{"type":"error","message":"unknown gesture \\"wave\\""}\n')
    assert drain(session) == [] and not refused.done  # the pong is still due
    session.receive(b'{"type":"pong","time":2}\n')
    assert drain(session) == [] and refused.done
    with pytest.raises(gc.RequestError, match='unknown gesture "wave"'):
        refused.result()


def test_replies_nobody_asked_for_are_errors_but_unsolicited_errors_are_delivered() -> None:
    session = greeted_session()
    session.receive(b'{"type":"pong","time":1}\n{"type":"error","message":"notice"}\n')
    with pytest.raises(gc.ProtocolError, match="a pong reply to no request"):
        session.next_message()
    assert drain(session) == [gc.ErrorMessage("notice")]
    _, ping = session.request(gc.Ping())
    session.receive(b'{"type":"status","protocol":1,"version":"1","uptime":1,"lastTouch":null,"devices":[],"clients":1,'
                    b'"maxClients":2,"counters":{"events":0,"sent":0,"dropped":0,"connections":1,"rejected":0,'
                    b'"slowDisconnects":0}}\n')
    with pytest.raises(gc.ProtocolError, match="a status reply where a pong was due"):
        session.next_message()


def tap(seq: int) -> gc.Tap:
    message = gc.decode(gesture_line(seq))
    assert isinstance(message, gc.Tap)
    return message


def test_a_full_buffer_drops_the_oldest_and_says_how_many() -> None:
    buffer = EventBuffer(limit=3)
    buffer.push(gc.Disconnected("gone"))
    for seq in range(1, 6):
        buffer.push(tap(seq))
    buffer.push(gc.Overflow(10))
    buffer.push(tap(6))
    # Kept: the marker, the overflow and tap 6; dropped: taps 1 to 5.
    popped = list(iter(buffer.pop, None))
    assert popped == [gc.Overflow(5), gc.Disconnected("gone"), gc.Overflow(10), tap(6)]
    buffer.push(gc.Overflow(10))
    buffer.push(tap(7))
    buffer.push(tap(8))
    buffer.push(tap(9))
    assert list(iter(buffer.pop, None)) == [gc.Overflow(10), tap(7), tap(8), tap(9)]


def test_how_a_connection_ends() -> None:
    session = greeted_session()
    assert ending(session, reconnecting=True) == gc.Disconnected("the daemon closed the connection without a goodbye")
    lost = ending(session, reconnecting=False)
    assert isinstance(lost, _Raise) and isinstance(lost.error, gc.ConnectionLost)
    with pytest.raises(gc.ConnectionLost, match="without a goodbye"):
        unwrap(lost)
    session.receive(b'{"type":"goodbye","reason":"stopping"}\n')
    assert drain(session) == [gc.Goodbye("stopping")]
    assert ending(session, reconnecting=False) == _End() and unwrap(_End()) is None
    assert ending(session, reconnecting=True) == gc.Disconnected("goodbye: stopping")
    reset = ending(session, reconnecting=False, error="Connection reset by peer")
    assert isinstance(reset, _Raise) and "Connection reset by peer" in str(reset.error)


def test_backoff_doubles_up_to_its_cap() -> None:
    assert list(itertools.islice(gc.Backoff().delays(), 8)) == [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0]
    assert list(itertools.islice(gc.Backoff(initial=1, maximum=3, factor=3).delays(), 4)) == [1, 3, 3, 3]


@pytest.mark.parametrize("initial, maximum, factor", [(0, 1, 2), (2, 1, 2), (1, 2, 0.5), (-1, 1, 2)])
def test_backoff_refuses_nonsense(initial: float, maximum: float, factor: float) -> None:
    with pytest.raises(ValueError):
        gc.Backoff(initial, maximum, factor)


def test_the_default_socket_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GESTURED_SOCKET", raising=False)
    assert gc.default_path() == "/run/gestured/gestured.sock" == gc.DEFAULT_SOCKET
    monkeypatch.setenv("GESTURED_SOCKET", "/tmp/other.sock")
    assert gc.default_path() == "/tmp/other.sock"
    assert gc.Client(None, gc.Subscribe()).path == "/tmp/other.sock"
    # An explicit path wins over the variable; an empty variable is no setting (as in
    # GestureProtocol's DaemonSocket, which gestured, gesturectl and gestured-web use).
    assert gc.Client("/tmp/given.sock", gc.Subscribe()).path == "/tmp/given.sock"
    monkeypatch.setenv("GESTURED_SOCKET", "")
    assert gc.default_path() == gc.DEFAULT_SOCKET
