"""A client for gestured, the touch gesture daemon: gestures from a Unix socket as typed
dataclasses, for blocking code and for asyncio. Standard library only.

.. code-block:: python

    import gestured_client

    with gestured_client.connect(gestures=["tap", "swipe"]) as client:
        for event in client:
            if isinstance(event, gestured_client.Tap):
                print("tap at", event.location.x, event.location.y)
            elif isinstance(event, gestured_client.Swipe) and event.edge == "top":
                print("swipe down from the top edge")

``gestured_client.aio.connect`` is the same for ``async with`` / ``async for``.
The wire contract is docs/protocol.md of the gestured repository.
"""

from . import aio
from ._session import DEFAULT_SOCKET, Backoff, Disconnected, Item, Reconnected, default_path
from .client import Client, connect
from .errors import ConnectionLost, GesturedError, GesturedUnavailable, ProtocolError, RequestError
from .messages import (
    PROTOCOL_VERSION,
    Counters,
    Device,
    DeviceInfo,
    DeviceKind,
    DevicePhase,
    Direction,
    Drag,
    Edge,
    ErrorMessage,
    Gesture,
    GestureKind,
    Goodbye,
    Hello,
    LongPress,
    Message,
    Motion,
    Overflow,
    Phase,
    Pinch,
    Ping,
    Point,
    Pong,
    Press,
    Request,
    Rotate,
    ServerMessage,
    Status,
    StatusRequest,
    Subscribe,
    Swipe,
    Tap,
    Touch,
    TouchPhase,
    Unknown,
    decode,
    encode,
)

__version__ = "0.1.0"

__all__ = [
    "aio",
    "connect",
    "Client",
    "Backoff",
    "Disconnected",
    "Reconnected",
    "Item",
    "DEFAULT_SOCKET",
    "default_path",
    "GesturedError",
    "GesturedUnavailable",
    "ProtocolError",
    "RequestError",
    "ConnectionLost",
    "PROTOCOL_VERSION",
    "GestureKind",
    "Phase",
    "TouchPhase",
    "DevicePhase",
    "Direction",
    "Edge",
    "DeviceKind",
    "Point",
    "DeviceInfo",
    "Counters",
    "Message",
    "Hello",
    "Gesture",
    "Press",
    "Tap",
    "LongPress",
    "Motion",
    "Drag",
    "Swipe",
    "Pinch",
    "Rotate",
    "Touch",
    "Device",
    "Pong",
    "Status",
    "ErrorMessage",
    "Overflow",
    "Goodbye",
    "Unknown",
    "ServerMessage",
    "Subscribe",
    "Ping",
    "StatusRequest",
    "Request",
    "decode",
    "encode",
]
