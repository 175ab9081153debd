"""The blocking client: ``with connect(...) as client: for event in client: ...``."""

from __future__ import annotations

import os
import socket
import time
from types import TracebackType
from typing import Callable, Iterable, Optional, Type, TypeVar, Union

from ._session import READ_SIZE, RETRIED, Backoff, ClientBase, Item, Reconnected, Session, _Raise, unwrap
from .errors import ConnectionLost, GesturedUnavailable, ProtocolError
from .messages import GestureKind, Message, Metrics, MetricsRequest, Ping, Pong, Request, Status, StatusRequest, Subscribe

__all__ = ["Client", "connect"]

#: The wait between reconnect attempts; the tests put a virtual clock here.
_sleep = time.sleep

_Reply = TypeVar("_Reply", bound=Message)


def connect(
    path: Union[str, "os.PathLike[str]", None] = None,
    *,
    gestures: Optional[Iterable[Union[GestureKind, str]]] = None,
    regions: Optional[Iterable[Optional[str]]] = None,
    devices: Optional[Iterable[str]] = None,
    touches: bool = False,
    reconnect: Union[bool, Backoff] = False,
    timeout: Optional[float] = 30.0,
) -> Client:
    """Connects to the daemon and subscribes; returns once the subscription is in force.

    ``path`` defaults to ``$GESTURED_SOCKET`` when set and not empty, else
    ``/run/gestured/gestured.sock``.
    ``gestures``, ``regions`` (``None`` in the list: outside every region) and
    ``devices`` filter what arrives (``None``: everything); ``touches=True`` adds raw
    contacts. With ``reconnect=True`` (or a :class:`Backoff`) a lost connection is
    re-established and the subscription re-sent, and iteration yields
    :class:`Disconnected` / :class:`Reconnected` around the gap; the first connection
    is not retried. ``timeout`` bounds the handshake and each ``ping()`` / ``status()``
    (``None``: no limit); waiting for events never times out.

    Raises :class:`GesturedUnavailable` (no daemon at ``path``, no permission, refused),
    :class:`RequestError` (the daemon refused the filters, e.g. an unknown gesture name),
    :class:`ProtocolError` or ``TimeoutError``.
    """
    client = Client(path, Subscribe.of(gestures, regions, devices, touches), reconnect=reconnect, timeout=timeout)
    client._open()
    return client


class Client(ClientBase):
    """A connection to gestured; iterate it for events. Not thread-safe, except that
    :meth:`close` may be called from another thread to end an iteration.

    Iteration yields :class:`Gesture` subclasses, :class:`Touch`, :class:`Device`,
    :class:`Overflow`, :class:`Goodbye`, unsolicited :class:`ErrorMessage`,
    :class:`Unknown` (a newer daemon's message), and with reconnect
    :class:`Disconnected` and :class:`Reconnected`. Without reconnect it stops after the
    daemon's ``goodbye`` and raises :class:`ConnectionLost` when the connection ends
    without one.
    """

    def __init__(
        self,
        path: Union[str, "os.PathLike[str]", None],
        subscription: Subscribe,
        *,
        reconnect: Union[bool, Backoff] = False,
        timeout: Optional[float] = 30.0,
    ) -> None:
        """Prefer :func:`connect`, which also opens the connection."""
        super().__init__(path, subscription, reconnect, timeout)
        self._socket: Optional[socket.socket] = None
        self._session: Optional[Session] = None

    @property
    def connected(self) -> bool:
        """Whether a connection is open (a reconnecting client may be between two)."""
        return self._session is not None

    def ping(self) -> Pong:
        """Round trip to the daemon; the :class:`Pong` holds its monotonic clock in µs."""
        return self._request(Ping(), Pong)

    def status(self) -> Status:
        """The daemon's status: version, uptime, devices, clients, counters."""
        return self._request(StatusRequest(), Status)

    def metrics(self) -> Metrics:
        """The daemon's counters for monitoring: gestures, touches, drops, delivery latency."""
        return self._request(MetricsRequest(), Metrics)

    def subscribe(
        self,
        gestures: Optional[Iterable[Union[GestureKind, str]]] = None,
        regions: Optional[Iterable[Optional[str]]] = None,
        devices: Optional[Iterable[str]] = None,
        touches: bool = False,
    ) -> None:
        """Replaces the filters (as in :func:`connect`); returns once they are in force.
        A reconnecting client re-sends the latest ones."""
        subscription = Subscribe.of(gestures, regions, devices, touches)
        self._request(subscription, Pong)
        self.subscription = subscription

    def close(self) -> None:
        """Closes the connection; iteration then stops. Safe to call twice, and from
        another thread (it wakes a blocked iteration)."""
        self._closed = True
        sock, self._socket, self._session = self._socket, None, None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, kind: Optional[Type[BaseException]], error: Optional[BaseException], traceback: Optional[TracebackType]
    ) -> None:
        self.close()

    def __iter__(self) -> Client:
        return self

    def __next__(self) -> Item:
        while not (self._closed or self._ended):
            entry = self._buffer.pop()
            if entry is None:
                if self._session is not None:
                    entry = self._receive()
                elif self.backoff is not None:
                    return self._reconnect()
                else:
                    break
            if entry is None:
                continue
            item = unwrap(entry)
            if item is None:
                self._ended = True
                break
            return item
        self.close()
        raise StopIteration

    # ------------------------------------------------------------------------- connection

    def _open(self) -> None:
        """Connects, reads the hello and puts the subscription in force."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        session = Session(self.path)
        deadline = self._deadline(time.monotonic())
        try:
            sock.settimeout(self.timeout)
            try:
                sock.connect(self.path)
            except socket.timeout:
                raise TimeoutError(f"connecting to {self.path} took over {self.timeout} s") from None
            except OSError as error:
                raise GesturedUnavailable.from_os_error(self.path, error) from None
            self._socket, self._session = sock, session
            if not self._read_until(lambda: session.hello is not None, deadline, waiting_for=None):
                raise GesturedUnavailable(self.path, "the daemon closed the connection before its hello")
            self._hello = session.hello
            self._request(self.subscription, Pong, deadline)
        except BaseException:
            self._socket = self._session = None
            sock.close()
            raise

    def _reconnect(self) -> Reconnected:
        """Tries again on the backoff schedule until connected (only a reconnecting
        client gets here); a refused subscription is raised, not retried."""
        for attempt, delay in self._attempts():
            _sleep(delay)
            if self._closed:
                raise StopIteration
            try:
                self._open()
            except RETRIED as error:
                self._attempt_failed(attempt, error)
            else:
                return self._reconnected(attempt)
        raise AssertionError("Backoff.delays() is endless")

    def _request(self, request: Request, expected: Type[_Reply], deadline: Optional[float] = None) -> _Reply:
        session, sock = self._session, self._socket
        if session is None or sock is None:
            raise self._no_connection()
        if deadline is None:
            deadline = self._deadline(time.monotonic())
        data, reply = session.request(request)
        try:
            sock.sendall(data)
        except OSError as error:
            reason = os.strerror(error.errno or 0)
            self._lose(reason)
            raise ConnectionLost(reason) from None
        if not self._read_until(lambda: reply.done, deadline, waiting_for=request.TYPE):
            self._lose()
            raise ConnectionLost(f"no reply to {request.TYPE}: {session.end_reason()}")
        result = reply.result()
        assert isinstance(result, expected)
        return result

    def _read_until(self, done: Callable[[], bool], deadline: Optional[float], waiting_for: Optional[str]) -> bool:
        """Reads until ``done()`` (the greeting or a reply has arrived), putting the
        messages that come first into the buffer, and a bad line among them too (the
        iteration raises it in its place); ``False`` at the end of the stream."""
        session = self._session
        assert session is not None
        while True:
            try:
                message = session.next_message(until=done)
            except ProtocolError as error:
                if session.hello is None:
                    raise  # the greeting itself is bad
                self._buffer.push(_Raise(error))
                continue
            if message is not None:
                self._buffer.push(message)
            elif done():
                return True
            elif session.eof:
                return False
            else:
                self._read_some(deadline, waiting_for)

    def _receive(self) -> Optional[Item]:
        """The next message from the socket (the buffer being empty), or ``None`` once
        the connection has ended and the buffer says how."""
        session = self._session
        while session is not None and session is self._session:
            message = session.next_message()
            if message is not None:
                return message
            if session.eof:
                self._lose()
                return None
            try:
                self._read_some(None, waiting_for=None)
            except ConnectionLost:
                return None  # _read_some has queued how it ended
        return None  # closed meanwhile

    def _read_some(self, deadline: Optional[float], waiting_for: Optional[str]) -> None:
        """Reads once into the session (``b""``: the end of the stream). Past
        ``deadline`` the connection is dropped and ``TimeoutError`` raised; a socket
        error drops it too and raises :class:`ConnectionLost`."""
        sock, session = self._socket, self._session
        if sock is None or session is None:
            raise self._no_connection()
        try:
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise socket.timeout
                sock.settimeout(remaining)
            else:
                sock.settimeout(None)
            data = sock.recv(READ_SIZE)
        except socket.timeout:
            reason, error = self._timeout_error(waiting_for)
            self._lose(reason)
            raise error from None
        except OSError as error:
            if not self._closed:
                reason = os.strerror(error.errno or 0)
                self._lose(reason)
                raise ConnectionLost(reason) from None
            data = b""
        session.receive(data)

    def _lose(self, error: Optional[str] = None) -> None:
        """The connection is over: close it and queue what the application is told."""
        session, sock = self._session, self._socket
        self._socket = self._session = None
        if sock is not None:
            sock.close()
        if session is not None:
            self._queue_ending(session, error)
