"""The protocol logic both clients share, without any I/O (sans-I/O, like h11).

The sync and asyncio clients only move bytes: they feed what they receive into a
:class:`Session`, send what it gives them, and hand the application what comes out of an
:class:`EventBuffer`. Everything that can be decided without a socket (line framing, the
hello handshake, matching replies to requests, the bounded buffer, the reconnect
schedule, how a connection ended) is decided here, once.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from dataclasses import dataclass
from typing import Callable, Deque, Iterator, Optional, Tuple, Type, Union

from .errors import ConnectionLost, GesturedError, GesturedUnavailable, ProtocolError, RequestError
from .messages import (
    PROTOCOL_VERSION,
    ErrorMessage,
    Goodbye,
    Hello,
    Message,
    Metrics,
    MetricsRequest,
    Overflow,
    Ping,
    Pong,
    Request,
    ServerMessage,
    Status,
    Subscribe,
    decode,
    encode,
)

#: Where the daemon listens unless told otherwise.
DEFAULT_SOCKET = "/run/gestured/gestured.sock"

#: The longest line accepted from the daemon. Its lines are a few hundred bytes; ``hello``
#: and ``status`` grow with the number of devices, never near this.
MAX_LINE = 1 << 20

#: Messages held for an application that is not reading while it waits for a reply
#: (the daemon's own default queue length).
MAX_BUFFERED = 1024

#: Bytes asked for per read.
READ_SIZE = 1 << 16

#: What a reconnect attempt may fail with and be tried again (not a refused subscription:
#: the same filters would be refused again).
RETRIED = (GesturedUnavailable, ConnectionLost, ProtocolError, OSError)

_log = logging.getLogger("gestured_client")


def default_path() -> str:
    """``$GESTURED_SOCKET`` when set and not empty, else ``/run/gestured/gestured.sock``.

    The rule every gestured program follows (docs/protocol.md "Transport"); a ``path``
    given to :func:`connect` wins over both.
    """
    return os.environ.get("GESTURED_SOCKET") or DEFAULT_SOCKET


@dataclass(frozen=True)
class Backoff:
    """When a reconnecting client tries again: after :attr:`initial` seconds, then each
    wait :attr:`factor` times the previous one, never more than :attr:`maximum`; back to
    :attr:`initial` once connected. ``reconnect=True`` means ``Backoff()``."""

    initial: float = 0.1
    maximum: float = 5.0
    factor: float = 2.0

    def __post_init__(self) -> None:
        if not (0 < self.initial <= self.maximum) or self.factor < 1:
            raise ValueError(f"a backoff needs 0 < initial <= maximum and factor >= 1, not {self}")

    def delays(self) -> Iterator[float]:
        """The waits before each attempt, endlessly."""
        delay = self.initial
        while True:
            yield delay
            delay = min(delay * self.factor, self.maximum)


@dataclass(frozen=True)
class Disconnected:
    """Yielded by a reconnecting client when its connection ended: events from now until
    the next :class:`Reconnected` are lost. :attr:`reason` says why (``goodbye:
    stopping``, ``closed without a goodbye``, an errno text …)."""

    reason: str


@dataclass(frozen=True)
class Reconnected:
    """Yielded by a reconnecting client when it is connected again and its subscription
    is in force: :attr:`hello` is the new daemon's greeting (devices may have changed),
    :attr:`attempts` how many tries it took. ``seq`` starts again from 1."""

    hello: Hello
    attempts: int


@dataclass(frozen=True)
class _End:
    """The connection ended after a goodbye: iteration stops."""


@dataclass(frozen=True)
class _Raise:
    """Iteration raises :attr:`error` at this point of the stream."""

    error: GesturedError


#: What the clients' iteration yields: every server message except replies and the
#: greeting, and the reconnect markers.
Item = Union[ServerMessage, Disconnected, Reconnected]

#: What the buffer holds: items, and how the stream goes on.
_Entry = Union[Item, _End, _Raise]


class LineBuffer:
    """Splits received bytes into lines. A line longer than ``max_line`` raises
    :class:`ProtocolError` once and is skipped up to its newline, so memory stays bounded
    and the lines after it are still read."""

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self._data = bytearray()
        self._max_line = max_line
        self._skipping = False

    def feed(self, data: bytes) -> None:
        self._data += data

    def next_line(self) -> Optional[bytes]:
        """The next complete line without its newline, or ``None`` until more arrives."""
        while True:
            end = self._data.find(b"\n")
            if end < 0:
                if self._skipping:
                    self._data.clear()
                elif len(self._data) > self._max_line:
                    head = bytes(self._data[:self._max_line])
                    self._data.clear()
                    self._skipping = True
                    raise self._too_long(head)
                return None
            line = bytes(self._data[:end])
            del self._data[: end + 1]
            if self._skipping:
                self._skipping = False
            elif len(line) > self._max_line:
                raise self._too_long(line)
            else:
                return line

    def take_partial(self) -> bytes:
        """What came after the last newline (at the end of the stream: an unfinished line)."""
        rest = bytes(self._data)
        self._data.clear()
        return rest

    def _too_long(self, line: bytes) -> ProtocolError:
        return ProtocolError(f"a line longer than {self._max_line} bytes (skipped)", line)


class Reply:
    """The answer to one request, filled in by :class:`Session` as lines arrive.

    A subscription is sent as ``subscribe`` followed by ``ping``: the daemon answers a
    good ``subscribe`` with nothing and a bad one with ``error``, and replies in request
    order, so the ``pong`` says the filters are in force and an ``error`` before it that
    they were refused.
    """

    def __init__(self, expected: Type[Message], confirms: Optional[Subscribe] = None) -> None:
        self.expected = expected
        self.confirms = confirms
        self.message: Optional[Message] = None
        self.error: Optional[ErrorMessage] = None
        self.done = False

    def answer(self, message: Message) -> bool:
        """Takes a reply line; ``False`` when it is not an answer to this request."""
        if isinstance(message, ErrorMessage):
            self.error = message
            self.done = self.confirms is None
        elif isinstance(message, self.expected):
            self.message = message
            self.done = True
        else:
            return False
        return True

    def result(self) -> Message:
        """The reply; raises :class:`RequestError` for an ``error`` reply."""
        if self.error is not None:
            raise RequestError(self.error.message)
        assert self.message is not None, "result() of an unanswered request"
        return self.message


class Session:
    """One connection's protocol state: bytes in, messages out, requests matched to replies."""

    def __init__(self, path: str, max_line: int = MAX_LINE) -> None:
        self.path = path
        self._lines = LineBuffer(max_line)
        self._pending: Deque[Reply] = deque()
        #: The greeting, once it has arrived.
        self.hello: Optional[Hello] = None
        #: The daemon's goodbye, once it has arrived.
        self.goodbye: Optional[Goodbye] = None
        #: The daemon closed its end.
        self.eof = False
        #: A subscription has been confirmed: the application was told the connection
        #: is up, so it must be told when it ends (before, connecting fails instead).
        self.established = False
        #: The first subscription, until confirmed. Until the daemon reads it, it sends
        #: every gesture and device event: those the filters would not let through are
        #: dropped here, so the application sees only what it asked for.
        self._unconfirmed: Optional[Subscribe] = None

    @property
    def waiting_for_reply(self) -> bool:
        return bool(self._pending)

    def receive(self, data: bytes) -> None:
        """Takes bytes from the socket; ``b""`` is the end of the stream."""
        if data:
            self._lines.feed(data)
        else:
            self.eof = True

    def request(self, request: Request) -> Tuple[bytes, Reply]:
        """The bytes to send for ``request`` and the :class:`Reply` that will hold its answer."""
        if isinstance(request, Subscribe):
            if not self.established:
                self._unconfirmed = request
            reply = Reply(Pong, confirms=request)
            data = encode(request) + encode(Ping())
        else:
            reply = Reply(Pong if isinstance(request, Ping) else Metrics if isinstance(request, MetricsRequest) else Status)
            data = encode(request)
        self._pending.append(reply)
        return data, reply

    def next_message(self, until: Optional[Callable[[], bool]] = None) -> Optional[ServerMessage]:
        """The next message for the application, or ``None`` when more bytes are needed
        (or, with :attr:`eof`, when there will be none). The greeting and replies are
        taken here: they fill :attr:`hello` and the pending :class:`Reply`; with
        ``until``, ``None`` also as soon as ``until()`` holds after taking one of them
        (the lines after it stay for later).

        Raises :class:`ProtocolError` for a bad line (the lines after it stay readable)
        and :class:`GesturedUnavailable` when the daemon refuses the connection.
        """
        while True:
            line = self._lines.next_line()
            if line is None:
                rest = self._lines.take_partial() if self.eof else b""
                if rest:
                    raise ProtocolError("the connection ended in the middle of a line", rest)
                return None
            if not line.strip():
                continue
            message = self._decode(line)
            if message is not None or (until is not None and until()):
                return message

    def _decode(self, line: bytes) -> Optional[ServerMessage]:
        message = decode(line)
        if self.hello is None:
            if isinstance(message, ErrorMessage):
                raise GesturedUnavailable(self.path, f"refused by the daemon: {message.message}")
            if not isinstance(message, Hello):
                raise ProtocolError("the first line is not a hello (is this gestured's socket?)", line)
            if message.protocol != PROTOCOL_VERSION:
                raise ProtocolError(
                    f"the daemon speaks protocol {message.protocol}; this client speaks {PROTOCOL_VERSION}", line
                )
            self.hello = message
            return None
        if isinstance(message, (Pong, Status, Metrics)) or (isinstance(message, ErrorMessage) and self._pending):
            if not self._pending:
                raise ProtocolError(f"a {message.TYPE} reply to no request", line)
            reply = self._pending[0]
            if not reply.answer(message):
                raise ProtocolError(f"a {message.TYPE} reply where a {reply.expected.TYPE} was due", line)
            if reply.done:
                self._pending.popleft()
                if reply.confirms is not None and reply.error is None:
                    self.established, self._unconfirmed = True, None
            return None
        if self._unconfirmed is not None and not self._unconfirmed.accepts(message):
            return None
        if isinstance(message, Goodbye):
            self.goodbye = message
        return message

    def end_reason(self) -> str:
        """Why the connection ended, for :class:`Disconnected` and :class:`ConnectionLost`."""
        if self.goodbye is not None:
            return f"goodbye: {self.goodbye.reason}"
        return "the daemon closed the connection without a goodbye"


class EventBuffer:
    """Items waiting for the application, at most ``limit`` of them: when full, the
    oldest messages are dropped and an :class:`~gestured_client.Overflow` with their
    number is delivered in their place, as the daemon does for a slow client (markers,
    ``goodbye`` and how the stream ends are never dropped)."""

    def __init__(self, limit: int = MAX_BUFFERED) -> None:
        self._items: Deque[_Entry] = deque()
        self._limit = limit
        self._dropped = 0

    def __len__(self) -> int:
        return len(self._items) + (1 if self._dropped else 0)

    @property
    def full(self) -> bool:
        return len(self._items) >= self._limit

    def push(self, item: _Entry) -> None:
        if self.full:
            self._drop_oldest()
        self._items.append(item)

    def pop(self) -> Optional[_Entry]:
        if self._dropped:
            dropped, self._dropped = self._dropped, 0
            return Overflow(dropped)
        return self._items.popleft() if self._items else None

    def _drop_oldest(self) -> None:
        for index, item in enumerate(self._items):
            if isinstance(item, (Disconnected, Reconnected, Goodbye, _End, _Raise)):
                continue
            del self._items[index]
            self._dropped += item.dropped if isinstance(item, Overflow) else 1
            return


def ending(session: Session, reconnecting: bool, error: Optional[str] = None) -> _Entry:
    """What the application is told when a connection ends (``error``: a socket error's
    text, or ``None`` for the end of the stream): a reconnecting client says
    :class:`Disconnected`; otherwise iteration stops after a goodbye and raises
    :class:`ConnectionLost` without one."""
    reason = error if error is not None else session.end_reason()
    if reconnecting:
        return Disconnected(reason)
    if error is None and session.goodbye is not None:
        return _End()
    return _Raise(ConnectionLost(reason))


def unwrap(entry: _Entry) -> Optional[Item]:
    """An entry of the buffer as iteration gives it: the item, ``None`` for the end of
    the stream, or the exception it carries raised."""
    if isinstance(entry, _End):
        return None
    if isinstance(entry, _Raise):
        raise entry.error
    return entry


class ClientBase:
    """What the sync and asyncio clients hold alike: where to connect, the filters to
    (re-)send, the reconnect schedule, the greeting and the buffer."""

    def __init__(
        self,
        path: Union[str, "os.PathLike[str]", None],
        subscription: Subscribe,
        reconnect: Union[bool, Backoff],
        timeout: Optional[float],
    ) -> None:
        #: The socket's path.
        self.path = os.fspath(path) if path is not None else default_path()
        #: The filters in force (re-sent after a reconnect).
        self.subscription = subscription
        #: The reconnect schedule, ``None`` without reconnect.
        self.backoff: Optional[Backoff] = None
        if isinstance(reconnect, Backoff):
            self.backoff = reconnect
        elif reconnect:
            self.backoff = Backoff()
        #: Seconds for the handshake and each request; ``None``: no limit.
        self.timeout = timeout
        self._hello: Optional[Hello] = None
        self._buffer = EventBuffer()
        self._closed = False
        self._ended = False

    @property
    def hello(self) -> Hello:
        """The greeting of the current (or last) connection: protocol, version, devices."""
        assert self._hello is not None, "client used before it connected"
        return self._hello

    def _deadline(self, now: float) -> Optional[float]:
        return None if self.timeout is None else now + self.timeout

    def _no_connection(self) -> ConnectionLost:
        return ConnectionLost("the client is closed" if self._closed else "not connected (reconnecting)")

    def _queue_ending(self, session: Session, error: Optional[str]) -> None:
        if not self._closed and session.established:
            self._buffer.push(ending(session, self.backoff is not None, error))

    def _attempts(self) -> Iterator[Tuple[int, float]]:
        """Reconnect attempts, numbered from 1, with the wait before each."""
        assert self.backoff is not None, "only a reconnecting client reconnects"
        return enumerate(self.backoff.delays(), start=1)

    def _attempt_failed(self, attempt: int, error: BaseException) -> None:
        _log.info("reconnect attempt %d to %s failed: %s", attempt, self.path, error)

    def _reconnected(self, attempt: int) -> Reconnected:
        _log.info("reconnected to %s after %d attempt(s)", self.path, attempt)
        return Reconnected(self.hello, attempt)

    def _timeout_error(self, waiting_for: Optional[str]) -> Tuple[str, TimeoutError]:
        """The reason a connection is dropped for a missing reply, and the exception."""
        what = f"reply to {waiting_for}" if waiting_for else "hello"
        reason = f"no {what} within {self.timeout} s"
        return reason, TimeoutError(f"gestured at {self.path} sent {reason}")
