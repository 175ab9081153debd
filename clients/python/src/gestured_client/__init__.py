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

from . import aio, errors, messages
from ._session import DEFAULT_SOCKET, Backoff, Disconnected, Item, Reconnected, default_path
from .client import Client, connect
from .errors import *  # noqa: F401,F403 (listed in errors.__all__)
from .messages import *  # noqa: F401,F403 (listed in messages.__all__)

__version__ = "0.1.0"

__all__ = ["aio", "connect", "Client", "Backoff", "Disconnected", "Reconnected", "Item", "DEFAULT_SOCKET", "default_path"]
__all__ += errors.__all__
__all__ += messages.__all__
