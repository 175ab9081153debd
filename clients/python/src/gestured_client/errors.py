"""The exceptions the client raises; all derive from :class:`GesturedError`."""

from __future__ import annotations

import os
from typing import Optional

__all__ = [
    "GesturedError",
    "GesturedUnavailable",
    "ProtocolError",
    "RequestError",
    "ConnectionLost",
]

#: How much of an offending line an exception's message quotes (the whole line is in
#: :attr:`ProtocolError.line`).
_QUOTED_LINE_LIMIT = 200


class GesturedError(Exception):
    """Base class of every exception raised by ``gestured_client``."""


class GesturedUnavailable(GesturedError):
    """The daemon cannot be reached at :attr:`path`, or it refused the connection.

    :attr:`errno` is the ``connect()`` error number (``ENOENT``: no socket there, the
    daemon is not running; ``ECONNREFUSED``: a stale socket file; ``EACCES``: not in the
    socket's group), or ``None`` when the daemon itself refused (``too many clients``,
    ``permission denied`` from its allow-list); :attr:`reason` says which in words.
    """

    def __init__(self, path: str, reason: str, errno: Optional[int] = None) -> None:
        super().__init__(f"gestured is not available at {path}: {reason}")
        self.path = path
        self.reason = reason
        self.errno = errno

    @classmethod
    def from_os_error(cls, path: str, error: OSError) -> GesturedUnavailable:
        """The exception for a failed ``connect()``, with the errno's text."""
        code = error.errno
        text = os.strerror(code) if code is not None else str(error)
        if code is not None:
            text = f"[Errno {code}] {text}"
        return cls(path, text, code)


class ProtocolError(GesturedError):
    """The daemon sent something that is not protocol 1: :attr:`line` is the offending
    line (``str``, or ``bytes`` when it was not UTF-8), :attr:`problem` what is wrong."""

    def __init__(self, problem: str, line: str | bytes) -> None:
        quoted = line if len(line) <= _QUOTED_LINE_LIMIT else line[:_QUOTED_LINE_LIMIT]
        suffix = "" if len(line) <= _QUOTED_LINE_LIMIT else f"… ({len(line)} characters)"
        super().__init__(f"protocol error: {problem}; line: {quoted!r}{suffix}")
        self.problem = problem
        self.line = line


class RequestError(GesturedError):
    """The daemon refused a request (an ``error`` reply): :attr:`message` is its text,
    e.g. ``unknown gesture "wave" (known: press, tap, …)``."""

    def __init__(self, message: str) -> None:
        super().__init__(f"gestured refused the request: {message}")
        self.message = message


class ConnectionLost(GesturedError):
    """The connection ended without a ``goodbye`` (the daemon crashed or was killed), or
    a request was made while a reconnecting client was disconnected."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"connection to gestured lost: {reason}")
        self.reason = reason
