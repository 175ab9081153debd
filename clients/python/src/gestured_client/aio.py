"""The asyncio client: ``async with aio.connect(...) as client: async for event in client: ...``.

One task per connection reads the socket: replies go to the ``ping()`` / ``status()``
that wait for them (from any task), everything else to the iteration. While nothing
waits for a reply and the application has :data:`~gestured_client._session.MAX_BUFFERED`
items unread, the reader stops reading, so a slow application slows down only its own
connection and the daemon applies its slow-client policy (``overflow``), as for any
client that does not read.
"""

from __future__ import annotations

import asyncio
import os
from types import TracebackType
from typing import Any, Callable, Dict, Generator, Iterable, Optional, Type, TypeVar, Union

from ._session import READ_SIZE, RETRIED, Backoff, ClientBase, Item, Reconnected, Reply, Session, _Raise, unwrap
from .errors import ConnectionLost, GesturedUnavailable, ProtocolError
from .messages import GestureKind, Message, Metrics, MetricsRequest, Ping, Pong, Request, Status, StatusRequest, Subscribe

__all__ = ["Client", "connect"]

#: The wait between reconnect attempts; the tests put a virtual clock here.
_sleep = asyncio.sleep

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
) -> Connecting:
    """Connects and subscribes, as :func:`gestured_client.connect` does; use it as
    ``async with aio.connect(...) as client:`` or ``client = await aio.connect(...)``."""
    subscription = Subscribe.of(gestures, regions, devices, touches)
    return Connecting(lambda: Client(path, subscription, reconnect=reconnect, timeout=timeout))


class Connecting:
    """What :func:`connect` returns: awaitable, and an async context manager that
    closes the client on exit. The client is made when awaited, inside the event loop."""

    def __init__(self, make_client: Callable[[], Client]) -> None:
        self._make_client = make_client
        self._client: Optional[Client] = None

    def __await__(self) -> Generator[Any, None, Client]:
        return self._open().__await__()

    async def _open(self) -> Client:
        self._client = self._make_client()
        await self._client._open()
        return self._client

    async def __aenter__(self) -> Client:
        return await self._open()

    async def __aexit__(
        self, kind: Optional[Type[BaseException]], error: Optional[BaseException], traceback: Optional[TracebackType]
    ) -> None:
        if self._client is not None:
            await self._client.close()


class _Connection:
    """One open connection: its streams, protocol state, reader task and the futures of
    requests waiting for their replies."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, session: Session) -> None:
        self.reader = reader
        self.writer = writer
        self.session = session
        self.task: Optional[asyncio.Task[None]] = None
        self.waiting: Dict[Reply, asyncio.Future[None]] = {}

    def settle_replies(self) -> None:
        for reply, future in list(self.waiting.items()):
            if reply.done and not future.done():
                future.set_result(None)

    def fail_replies(self, error: BaseException) -> None:
        for future in self.waiting.values():
            if not future.done():
                future.set_exception(error)
                future.exception()  # retrieved here: its waiter may have gone


class Client(ClientBase):
    """A connection to gestured for asyncio; ``async for`` it for events (the same items
    as the sync :class:`gestured_client.Client`). ``ping()``, ``status()`` and
    ``subscribe()`` may be awaited from any task, also while another task iterates."""

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
        self._connection: Optional[_Connection] = None
        self._available = asyncio.Event()  # the buffer has something, or the connection changed
        self._space = asyncio.Event()  # the application took something, or a reply is awaited

    @property
    def connected(self) -> bool:
        """Whether a connection is open (a reconnecting client may be between two)."""
        return self._connection is not None

    async def ping(self) -> Pong:
        """Round trip to the daemon; the :class:`Pong` holds its monotonic clock in µs."""
        return await self._request(Ping(), Pong)

    async def status(self) -> Status:
        """The daemon's status: version, uptime, devices, clients, counters."""
        return await self._request(StatusRequest(), Status)

    async def metrics(self) -> Metrics:
        """The daemon's counters for monitoring: gestures, touches, drops, delivery latency."""
        return await self._request(MetricsRequest(), Metrics)

    async def subscribe(
        self,
        gestures: Optional[Iterable[Union[GestureKind, str]]] = None,
        regions: Optional[Iterable[Optional[str]]] = None,
        devices: Optional[Iterable[str]] = None,
        touches: bool = False,
    ) -> None:
        """Replaces the filters; returns once they are in force (re-sent after a reconnect)."""
        subscription = Subscribe.of(gestures, regions, devices, touches)
        await self._request(subscription, Pong)
        self.subscription = subscription

    async def close(self) -> None:
        """Closes the connection; iteration then stops. Safe to call twice."""
        self._closed = True
        connection, self._connection = self._connection, None
        self._available.set()
        if connection is not None:
            await self._shut(connection)

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(
        self, kind: Optional[Type[BaseException]], error: Optional[BaseException], traceback: Optional[TracebackType]
    ) -> None:
        await self.close()

    def __aiter__(self) -> Client:
        return self

    async def __anext__(self) -> Item:
        while not (self._closed or self._ended):
            entry = self._buffer.pop()
            if entry is None:
                if self._connection is not None:
                    self._available.clear()
                    await self._available.wait()
                    continue
                if self.backoff is None:
                    break
                return await self._reconnect()
            self._space.set()
            item = unwrap(entry)
            if item is None:
                self._ended = True
                break
            return item
        await self.close()
        raise StopAsyncIteration

    # ------------------------------------------------------------------------- connection

    async def _open(self) -> None:
        """Connects, reads the hello, starts the reader and puts the subscription in force."""
        deadline = self._deadline(asyncio.get_running_loop().time())
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(self.path), self._remaining(deadline))
        except asyncio.TimeoutError:  # before OSError: the same class from Python 3.11 on
            raise TimeoutError(f"connecting to {self.path} took over {self.timeout} s") from None
        except OSError as error:
            raise GesturedUnavailable.from_os_error(self.path, error) from None
        connection = _Connection(reader, writer, Session(self.path))
        try:
            session = connection.session
            greeted: Callable[[], bool] = lambda: session.hello is not None
            while session.next_message(until=greeted) is None and not greeted():  # (only a hello comes first)
                if session.eof:
                    raise GesturedUnavailable(self.path, "the daemon closed the connection before its hello")
                session.receive(await self._within(deadline, reader.read(READ_SIZE), None))
            self._hello = session.hello
            self._connection = connection
            connection.task = asyncio.ensure_future(self._read(connection))
            await self._request(self.subscription, Pong, deadline)
        except BaseException:
            if self._connection is connection:
                self._connection = None
            await self._shut(connection)
            raise

    async def _reconnect(self) -> Reconnected:
        """Tries again on the backoff schedule until connected; a refused subscription
        is raised, not retried."""
        for attempt, delay in self._attempts():
            await _sleep(delay)
            if self._closed:
                raise StopAsyncIteration
            try:
                await self._open()
            except RETRIED as error:
                self._attempt_failed(attempt, error)
            else:
                return self._reconnected(attempt)
        raise AssertionError("Backoff.delays() is endless")

    async def _request(self, request: Request, expected: Type[_Reply], deadline: Optional[float] = None) -> _Reply:
        connection = self._connection
        if connection is None:
            raise self._no_connection()
        if deadline is None:
            deadline = self._deadline(asyncio.get_running_loop().time())
        data, reply = connection.session.request(request)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        connection.waiting[reply] = future
        self._space.set()  # a reader held back by a full buffer must read on to the reply
        try:
            connection.writer.write(data)
            await connection.writer.drain()
            await self._within(deadline, asyncio.shield(future), request.TYPE)
        except OSError as error:
            if not isinstance(error, TimeoutError):
                reason = os.strerror(error.errno or 0)
                self._lose(connection, reason)
                raise ConnectionLost(reason) from None
            raise
        finally:
            connection.waiting.pop(reply, None)
        result = reply.result()
        assert isinstance(result, expected)
        return result

    def _remaining(self, deadline: Optional[float]) -> Optional[float]:
        return None if deadline is None else max(0.0, deadline - asyncio.get_running_loop().time())

    async def _within(self, deadline: Optional[float], awaitable: Any, waiting_for: Optional[str]) -> Any:
        """Awaits ``awaitable`` (a read or a reply) until ``deadline``; past it the
        connection is dropped and ``TimeoutError`` raised. A socket error is
        :class:`ConnectionLost`."""
        try:
            return await asyncio.wait_for(awaitable, self._remaining(deadline))
        except asyncio.TimeoutError:
            reason, error = self._timeout_error(waiting_for)
            if self._connection is not None:
                self._lose(self._connection, reason)
            raise error from None
        except OSError as failure:
            raise ConnectionLost(os.strerror(failure.errno or 0)) from None

    async def _read(self, connection: _Connection) -> None:
        """The reader task: socket → session → replies and buffer, until the end."""
        session = connection.session
        error: Optional[str] = None
        try:
            while True:
                try:
                    message = session.next_message()
                except ProtocolError as problem:
                    self._deliver(problem)
                    continue
                connection.settle_replies()
                if message is not None:
                    while self._buffer.full and not session.waiting_for_reply:
                        self._space.clear()
                        await self._space.wait()
                    self._deliver(message)
                elif session.eof:
                    break
                else:
                    session.receive(await connection.reader.read(READ_SIZE))
        except OSError as failure:
            error = os.strerror(failure.errno or 0)
        except Exception as failure:  # a bug here must not leave the application waiting
            error = f"the client's reader failed: {failure!r}"
        self._lose(connection, error)

    def _deliver(self, item: Union[Item, ProtocolError]) -> None:
        self._buffer.push(_Raise(item) if isinstance(item, ProtocolError) else item)
        self._available.set()

    def _lose(self, connection: _Connection, error: Optional[str] = None) -> None:
        """The connection is over: close it, fail its waiting requests and queue what
        the application is told."""
        connection.fail_replies(ConnectionLost(error or connection.session.end_reason()))
        if self._connection is not connection:
            return
        self._connection = None
        connection.writer.close()
        if connection.task is not None and connection.task is not asyncio.current_task():
            connection.task.cancel()
        self._queue_ending(connection.session, error)
        self._available.set()

    async def _shut(self, connection: _Connection) -> None:
        connection.fail_replies(ConnectionLost("the client is closed"))
        task = connection.task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        connection.writer.close()
        try:
            await connection.writer.wait_closed()
        except OSError:
            pass
