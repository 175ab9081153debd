"""Every message of protocol 1 (docs/protocol.md) as a frozen dataclass, and the codec.

:func:`decode` turns one line from the daemon into a message. It is strict about the
fields it knows (a missing field or a wrong type raises :class:`~gestured_client.ProtocolError`
naming the field) and lenient about everything else, because protocol 1 only ever grows:

- unknown fields are ignored;
- an unknown ``type`` decodes as :class:`Unknown`;
- a known ``type`` with a value this client does not know where an enum is expected
  (a new gesture kind, say) also decodes as :class:`Unknown`, with the reason, so code
  that handles :class:`Gesture` never meets a value outside :class:`GestureKind`.

Attribute names are the wire names in snake case (``localLocation`` → ``local_location``);
:meth:`Message.to_wire` gives the JSON object back with the wire names.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, is_dataclass
from enum import Enum
from typing import Any, Callable, ClassVar, Dict, Iterable, List, Mapping, Optional, Tuple, Type, TypeVar, Union, cast

from .errors import ProtocolError

__all__ = [
    "PROTOCOL_VERSION",
    "GestureKind",
    "Phase",
    "TouchPhase",
    "DevicePhase",
    "ActivityPhase",
    "Direction",
    "Edge",
    "DeviceKind",
    "Point",
    "DeviceInfo",
    "Counters",
    "GhostSeries",
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
    "Activity",
    "Pong",
    "Status",
    "Metrics",
    "MetricsGestureCount",
    "MetricsGestureSeries",
    "MetricsInputs",
    "LatencyBucket",
    "Latency",
    "ErrorMessage",
    "Overflow",
    "Goodbye",
    "Unknown",
    "ServerMessage",
    "Subscribe",
    "Ping",
    "StatusRequest",
    "MetricsRequest",
    "Request",
    "decode",
    "encode",
]

#: The protocol version this client speaks (``hello``'s ``protocol``).
PROTOCOL_VERSION = 1


class _WireEnum(str, Enum):
    """A wire string; compares equal to it (``GestureKind.TAP == "tap"``) and prints as it."""

    def __str__(self) -> str:
        return str(self.value)


class GestureKind(_WireEnum):
    """``gesture`` of a gesture line."""

    PRESS = "press"
    TAP = "tap"
    LONG_PRESS = "long-press"
    DRAG = "drag"
    SWIPE = "swipe"
    PINCH = "pinch"
    ROTATE = "rotate"


class Phase(_WireEnum):
    """``phase`` of a gesture line. Discrete gestures (tap, swipe) are a single ``ended``;
    every continuous gesture that began ends exactly once, ``ended`` or ``cancelled``."""

    BEGAN = "began"
    CHANGED = "changed"
    ENDED = "ended"
    CANCELLED = "cancelled"


class TouchPhase(_WireEnum):
    """``phase`` of a raw ``touch`` line."""

    BEGAN = "began"
    MOVED = "moved"
    ENDED = "ended"
    CANCELLED = "cancelled"


class DevicePhase(_WireEnum):
    """``phase`` of a ``device`` line."""

    ADDED = "added"
    REMOVED = "removed"


class ActivityPhase(_WireEnum):
    """``phase`` of an ``activity`` line."""

    #: No touch on any device for the daemon's ``idle-timeout``.
    IDLE = "idle"
    #: The first touch after ``idle``.
    ACTIVE = "active"


class Direction(_WireEnum):
    """A swipe's ``direction``."""

    LEFT = "left"
    RIGHT = "right"
    UP = "up"
    DOWN = "down"


class Edge(_WireEnum):
    """The screen ``edge`` a swipe started from."""

    LEFT = "left"
    RIGHT = "right"
    TOP = "top"
    BOTTOM = "bottom"


class DeviceKind(_WireEnum):
    """A device's ``kind``. Device kinds are descriptive, so a kind this client does not
    know stays a plain ``str`` instead of turning the message into :class:`Unknown`."""

    TOUCHSCREEN = "touchscreen"
    TOUCHPAD = "touchpad"
    REPLAY = "replay"


#: Metadata of a field whose ``None`` is left out of :meth:`Message.to_wire` (the wire has
#: no such key then) rather than written as null. Wire names are the attribute names in
#: camel case.
_ABSENT_WHEN_NONE = {"omit_if_none": True}
_ABSENT_WHEN_EMPTY = {"omit_if_empty": True}


@dataclass(frozen=True)
class Point:
    """``{"x":…,"y":…}``: normalised to 0…1 in screen orientation, origin top-left (may
    fall slightly outside on uncalibrated panels). Also used for translations and
    velocities (normalised units per second)."""

    x: float
    y: float


@dataclass(frozen=True)
class DeviceInfo:
    """A device as listed in :class:`Hello` and :class:`Status`."""

    name: str
    kind: Union[DeviceKind, str]
    #: The device node (or recording), if any.
    path: Optional[str]


@dataclass(frozen=True)
class Counters:
    """``counters`` of :class:`Status`: totals over the daemon's life."""

    #: Events broadcast (before filtering).
    events: int
    #: Event lines queued to clients.
    sent: int
    #: Event lines dropped for slow clients.
    dropped: int
    #: Connections accepted.
    connections: int
    #: Connections refused (limit reached, not allowed).
    rejected: int
    #: Clients disconnected for not reading.
    slow_disconnects: int


@dataclass(frozen=True)
class GhostSeries:
    """``ghosts`` of :class:`Status`: a periodic series of ghost touches touch hygiene
    learned on a device (short, motionless touches at one point on a fixed period)."""

    #: The device's name, as in events' ``device``.
    device: str
    #: Where the touches are (normalised screen space).
    location: Point
    #: The interval between the touch-downs, µs.
    period: int
    #: The touches of the series so far (those that taught it included).
    count: int


@dataclass(frozen=True)
class Message:
    """Base of every message (a frozen dataclass); :attr:`TYPE` is the wire ``type``."""

    TYPE: ClassVar[str] = ""

    def to_wire(self) -> Dict[str, Any]:
        """The message as the JSON object the wire carries (wire names, enums as strings,
        fields that are absent on the wire left out)."""
        return {"type": self.TYPE, **_encode_fields(self)}


# ----------------------------------------------------------------------------- server messages


@dataclass(frozen=True)
class Hello(Message):
    """The first line of every connection."""

    TYPE: ClassVar[str] = "hello"
    protocol: int
    #: ``"gestured"``.
    server: str
    version: str
    devices: Tuple[DeviceInfo, ...]


@dataclass(frozen=True)
class Gesture(Message):
    """Fields common to every gesture line; the subclass (:class:`Tap`, :class:`Swipe` …)
    matches :attr:`gesture` and adds the kind's own fields."""

    TYPE: ClassVar[str] = "gesture"
    gesture: GestureKind
    phase: Phase
    #: Shared by every phase of one gesture, unique for the daemon's lifetime.
    id: int
    #: Per connection, strictly increasing from 1; skips events dropped for a slow client.
    seq: int
    #: Microseconds, the kernel's ``CLOCK_MONOTONIC`` time of the input (or the timer's deadline).
    time: int
    device: str
    #: The region that recognized the gesture, ``None`` for the top level.
    region: Optional[str]
    #: Fingers taking part.
    fingers: int
    #: Where the gesture is now (the fingers' centroid).
    location: Point
    #: :attr:`location` in the region's own 0…1 space; only when :attr:`region` is set.
    local_location: Optional[Point] = field(metadata=_ABSENT_WHEN_NONE)


@dataclass(frozen=True)
class Press(Gesture):
    """``press``: ``began`` at touch-down, ``ended`` at the last lift or ``cancelled``."""


@dataclass(frozen=True)
class Tap(Gesture):
    """``tap``: a single ``ended``."""

    #: Its place in a multi-tap sequence: 1, 2, 3 …
    count: int


@dataclass(frozen=True)
class LongPress(Gesture):
    """``long-press``: ``began`` at the deadline while the finger is down, ``changed`` on
    movement, ``ended`` on lift (or ``cancelled``)."""


@dataclass(frozen=True)
class Motion(Gesture):
    """The fields :class:`Drag` and :class:`Swipe` share (``isinstance(e, Motion)``
    matches both)."""

    #: The screen edge the drag started from (within the edge margin), if any: the same on
    #: every event of the drag and on its swipe (an edge pan).
    edge: Optional[Edge]
    start_location: Point
    #: :attr:`start_location` in the region's own space; only when :attr:`region` is set.
    local_start_location: Optional[Point] = field(metadata=_ABSENT_WHEN_NONE)
    translation: Point
    #: Normalised units per second.
    velocity: Point
    predicted_end_location: Point
    predicted_end_translation: Point


@dataclass(frozen=True)
class Drag(Motion):
    """``drag``: ``began``, ``changed`` …, then ``ended`` or ``cancelled``."""


@dataclass(frozen=True)
class Swipe(Motion):
    """``swipe``: a single ``ended``, right after the drag's ``ended``."""

    direction: Direction


@dataclass(frozen=True)
class Pinch(Gesture):
    """``pinch``: the fingers' spread relative to where the pinch began."""

    scale: float
    #: Scale per second (UIKit's ``UIPinchGestureRecognizer.velocity``); 0 where there is
    #: no estimate yet (``began``), on ``cancelled``, and from a daemon older than the field.
    velocity: float


@dataclass(frozen=True)
class Rotate(Gesture):
    """``rotate``: degrees relative to where the rotation began, clockwise positive."""

    rotation: float
    #: Degrees per second, clockwise positive; 0 where there is no estimate yet
    #: (``began``), on ``cancelled``, and from a daemon older than the field.
    velocity: float


@dataclass(frozen=True)
class Touch(Message):
    """A raw contact (only with ``touches=True``)."""

    TYPE: ClassVar[str] = "touch"
    phase: TouchPhase
    #: Identifies the contact.
    touch: int
    seq: int
    time: int
    device: str
    location: Point


@dataclass(frozen=True)
class Device(Message):
    """An input device arrived or went."""

    TYPE: ClassVar[str] = "device"
    phase: DevicePhase
    seq: int
    #: The daemon's ``CLOCK_MONOTONIC`` time of the change, µs.
    time: int
    device: str
    kind: Union[DeviceKind, str]
    path: Optional[str]


@dataclass(frozen=True)
class Activity(Message):
    """The daemon went idle (no touch for its ``idle-timeout``) or active again. Sent to
    every client whatever its filters."""

    TYPE: ClassVar[str] = "activity"
    phase: ActivityPhase
    seq: int
    #: The daemon's ``CLOCK_MONOTONIC`` time, µs: when the timeout ran out (idle), when the
    #: waking touch was read (active).
    time: int


@dataclass(frozen=True)
class Pong(Message):
    """The answer to ``ping``."""

    TYPE: ClassVar[str] = "pong"
    #: The daemon's ``CLOCK_MONOTONIC`` time, µs.
    time: int


@dataclass(frozen=True)
class Status(Message):
    """The answer to ``status``."""

    TYPE: ClassVar[str] = "status"
    protocol: int
    version: str
    #: Seconds since the daemon started.
    uptime: int
    #: When the daemon last read a touch (its ``CLOCK_MONOTONIC`` clock, µs); None before the first.
    last_touch: Optional[int]
    devices: Tuple[DeviceInfo, ...]
    clients: int
    max_clients: int
    counters: Counters
    #: The ghost series the daemon's devices make; empty when none (the wire leaves it out).
    ghosts: Tuple[GhostSeries, ...] = field(default=(), metadata=_ABSENT_WHEN_EMPTY)


@dataclass(frozen=True)
class MetricsGestureCount:
    """How often one gesture kind reached one phase (in :class:`MetricsGestureSeries`)."""

    gesture: GestureKind
    phase: Phase
    count: int


@dataclass(frozen=True)
class MetricsGestureSeries:
    """The gesture counts of one device and region (``None``: the top level; ``"other"``
    gathers devices and regions past the daemon's label limits)."""

    device: str
    region: Optional[str]
    counts: Tuple[MetricsGestureCount, ...]


@dataclass(frozen=True)
class MetricsInputs:
    """Touch-downs, ``SYN_DROPPED`` recoveries and touches touch hygiene filtered, of one device."""

    device: str
    touches: int
    syn_dropped: int
    #: Touches touch hygiene dropped or ended, by reason (``bounce``, ``repeat``,
    #: ``too-short``, ``phantom``, ``zero-duration``, ``stuck``); empty when none (the wire leaves it out).
    filtered: Mapping[str, int] = field(default_factory=dict, hash=False, metadata=_ABSENT_WHEN_EMPTY)


@dataclass(frozen=True)
class LatencyBucket:
    """Lines delivered within :attr:`le` µs of their input (cumulative)."""

    le: int
    count: int


@dataclass(frozen=True)
class Latency:
    """Delivery latency, input event time → written to the socket, as a histogram (µs)."""

    buckets: Tuple[LatencyBucket, ...]
    count: int
    #: Sum of every observation, µs.
    sum: int


@dataclass(frozen=True)
class Metrics(Message):
    """The answer to ``metrics`` (docs/metrics.md: what gestured-web's ``/metrics`` serves)."""

    TYPE: ClassVar[str] = "metrics"
    #: Seconds since the daemon started.
    uptime: int
    devices: Tuple[DeviceInfo, ...]
    clients: int
    #: Event lines dropped for slow clients.
    dropped: int
    #: The last touch-down as wall-clock µs since 1970; None before the first.
    last_touch: Optional[int]
    gestures: Tuple[MetricsGestureSeries, ...]
    inputs: Tuple[MetricsInputs, ...]
    latency: Latency


@dataclass(frozen=True)
class ErrorMessage(Message):
    """``error``: a refused request, or a refused connection (then closed)."""

    TYPE: ClassVar[str] = "error"
    message: str


@dataclass(frozen=True)
class Overflow(Message):
    """This client lost :attr:`dropped` events since the last notice (it read too slowly)."""

    TYPE: ClassVar[str] = "overflow"
    dropped: int


@dataclass(frozen=True)
class Goodbye(Message):
    """The daemon is closing the connection: ``"stopping"``, ``"replay finished"``, or
    why a slow client is disconnected."""

    TYPE: ClassVar[str] = "goodbye"
    reason: str


@dataclass(frozen=True)
class Unknown(Message):
    """A line this client does not understand but a newer daemon may send: an unknown
    :attr:`type`, or a known one with an unknown enum value (:attr:`reason` says which).
    :attr:`fields` is the whole JSON object."""

    type: str
    fields: Mapping[str, Any] = field(hash=False)
    reason: str

    def to_wire(self) -> Dict[str, Any]:
        return dict(self.fields)


#: What :func:`decode` returns.
ServerMessage = Union[
    Hello, Press, Tap, LongPress, Drag, Swipe, Pinch, Rotate, Touch, Device, Activity, Pong, Status,
    Metrics, ErrorMessage, Overflow, Goodbye, Unknown,
]

# ----------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class Subscribe(Message):
    """Replaces the connection's filters. ``None`` lets everything through; ``None``
    inside :attr:`regions` means "outside every region"; :attr:`devices` also filters
    ``device`` and ``touch`` lines."""

    TYPE: ClassVar[str] = "subscribe"
    gestures: Optional[Tuple[str, ...]] = field(default=None, metadata=_ABSENT_WHEN_NONE)
    regions: Optional[Tuple[Optional[str], ...]] = field(default=None, metadata=_ABSENT_WHEN_NONE)
    devices: Optional[Tuple[str, ...]] = field(default=None, metadata=_ABSENT_WHEN_NONE)
    touches: bool = False

    @classmethod
    def of(
        cls,
        gestures: Optional[Iterable[Union[GestureKind, str]]] = None,
        regions: Optional[Iterable[Optional[str]]] = None,
        devices: Optional[Iterable[str]] = None,
        touches: bool = False,
    ) -> Subscribe:
        """Builds a subscription from any iterables (a bare string is refused: it would
        be read letter by letter)."""
        return cls(
            gestures=_strings("gestures", gestures),
            regions=_name_list("regions", regions, null_allowed=True),
            devices=_strings("devices", devices),
            touches=bool(touches),
        )

    def accepts(self, message: Message) -> bool:
        """Whether the daemon lets ``message`` through these filters (as
        docs/protocol.md says: touches only when asked for, and not filtered by
        gestures or regions)."""
        if isinstance(message, Gesture):
            if self.gestures is not None and message.gesture.value not in self.gestures:
                return False
            if self.regions is not None and message.region not in self.regions:
                return False
        elif isinstance(message, Touch):
            if not self.touches:
                return False
        elif not isinstance(message, Device):
            return True
        return self.devices is None or message.device in self.devices


@dataclass(frozen=True)
class Ping(Message):
    """Asks for a :class:`Pong`."""

    TYPE: ClassVar[str] = "ping"


@dataclass(frozen=True)
class StatusRequest(Message):
    """Asks for a :class:`Status`."""

    TYPE: ClassVar[str] = "status"


@dataclass(frozen=True)
class MetricsRequest(Message):
    """Asks for a :class:`Metrics`."""

    TYPE: ClassVar[str] = "metrics"


Request = Union[Subscribe, Ping, StatusRequest, MetricsRequest]


def _name_list(
    what: str, values: Optional[Iterable[Optional[str]]], *, null_allowed: bool
) -> Optional[Tuple[Optional[str], ...]]:
    if values is None:
        return None
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{what} must be a list of names, not the single string {values!r}")
    names = tuple(values)
    for name in names:
        if not isinstance(name, str) and not (name is None and null_allowed):
            allowed = "strings or None" if null_allowed else "strings"
            raise TypeError(f"{what} must hold {allowed}, not {name!r}")
    return tuple(name.value if isinstance(name, Enum) else name for name in names)


def _strings(what: str, values: Optional[Iterable[str]]) -> Optional[Tuple[str, ...]]:
    names = _name_list(what, values, null_allowed=False)
    return None if names is None else tuple(name for name in names if name is not None)


def encode(request: Request) -> bytes:
    """One request line, newline included."""
    return (json.dumps(request.to_wire(), separators=(",", ":"), ensure_ascii=False) + "\n").encode()


# ----------------------------------------------------------------------------- encoding


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _encode_value(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if is_dataclass(value) and not isinstance(value, type):
        return _encode_fields(value)
    if isinstance(value, tuple):
        return [_encode_value(item) for item in value]
    return value


def _encode_fields(instance: Any) -> Dict[str, Any]:
    wire: Dict[str, Any] = {}
    for spec in fields(instance):
        value = getattr(instance, spec.name)
        if value is None and spec.metadata.get("omit_if_none", False):
            continue
        if not value and spec.metadata.get("omit_if_empty", False):
            continue
        wire[_camel(spec.name)] = _encode_value(value)
    return wire


# ----------------------------------------------------------------------------- decoding

_E = TypeVar("_E", bound=Enum)


class _UnknownValue(Exception):
    """A known field holds a value this client does not know (from a newer protocol)."""


def _preview(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:60] + "…"


class _Fields:
    """Typed access to one JSON object of a line; every problem names the field."""

    def __init__(self, values: Mapping[str, Any], line: str, where: str) -> None:
        self.values = values
        self.line = line
        self.where = where

    def _problem(self, name: str, expected: str) -> ProtocolError:
        if name not in self.values:
            return ProtocolError(f'{self.where} lacks the field "{name}"', self.line)
        return ProtocolError(
            f'field "{name}" of {self.where} must be {expected}, not {_preview(self.values[name])}', self.line
        )

    def integer(self, name: str) -> int:
        value = self.values.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self._problem(name, "a non-negative integer")
        return value

    def number(self, name: str) -> float:
        value = self.values.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self._problem(name, "a number")
        return float(value)

    def added_number(self, name: str) -> float:
        """A number field a later release added: 0 when absent (an older daemon's line)."""
        return self.number(name) if name in self.values else 0.0

    def string(self, name: str) -> str:
        value = self.values.get(name)
        if not isinstance(value, str):
            raise self._problem(name, "a string")
        return value

    def optional_integer(self, name: str) -> Optional[int]:
        """A field that is always present but may be null."""
        if name in self.values and self.values[name] is None:
            return None
        try:
            return self.integer(name)
        except ProtocolError:
            raise self._problem(name, "a non-negative integer or null") from None

    def optional_string(self, name: str) -> Optional[str]:
        """A field that is always present but may be null."""
        if name in self.values and self.values[name] is None:
            return None
        try:
            return self.string(name)
        except ProtocolError:
            raise self._problem(name, "a string or null") from None

    def nested(self, name: str, expected: str) -> _Fields:
        value = self.values.get(name)
        if not isinstance(value, dict):
            raise self._problem(name, expected)
        return _Fields(value, self.line, f'"{name}" of {self.where}')

    def point(self, name: str) -> Point:
        inner = self.nested(name, 'an object {"x": number, "y": number}')
        return Point(inner.number("x"), inner.number("y"))

    def optional_point(self, name: str) -> Optional[Point]:
        """A field that may be absent or null."""
        return None if self.values.get(name) is None else self.point(name)

    def enum(self, name: str, kind: Type[_E]) -> _E:
        text = self.string(name)
        try:
            return kind(text)
        except ValueError:
            raise _UnknownValue(f'unknown {name} "{text}"') from None

    def optional_enum(self, name: str, kind: Type[_E]) -> Optional[_E]:
        """A field that is always present but may be null."""
        if name in self.values and self.values[name] is None:
            return None
        try:
            return self.enum(name, kind)
        except ProtocolError:
            raise self._problem(name, "a string or null") from None

    def device_kind(self, name: str) -> Union[DeviceKind, str]:
        text = self.string(name)
        try:
            return DeviceKind(text)
        except ValueError:
            return text

    def counts(self, name: str) -> Dict[str, int]:
        """An object of non-negative integer counts by name that may be absent (then empty)."""
        if name not in self.values:
            return {}
        inner = self.nested(name, "an object of non-negative integer counts")
        return {key: inner.integer(key) for key in inner.values}

    def objects(self, name: str, expected: str) -> List[_Fields]:
        """An array of objects, each as fields of its own."""
        items = self.values.get(name)
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            raise self._problem(name, expected)
        return [_Fields(item, self.line, f'"{name}[{index}]" of {self.where}') for index, item in enumerate(items)]

    def devices(self, name: str) -> Tuple[DeviceInfo, ...]:
        items = self.values.get(name)
        expected = 'an array of {"name", "kind", "path"} objects'
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            raise self._problem(name, expected)
        devices: List[DeviceInfo] = []
        for index, item in enumerate(items):
            entry = _Fields(item, self.line, f'"{name}[{index}]" of {self.where}')
            devices.append(DeviceInfo(entry.string("name"), entry.device_kind("kind"), entry.optional_string("path")))
        return tuple(devices)


def _common_gesture_fields(f: _Fields) -> Dict[str, Any]:
    return {
        "gesture": f.enum("gesture", GestureKind),
        "phase": f.enum("phase", Phase),
        "id": f.integer("id"),
        "seq": f.integer("seq"),
        "time": f.integer("time"),
        "device": f.string("device"),
        "region": f.optional_string("region"),
        "fingers": f.integer("fingers"),
        "location": f.point("location"),
        "local_location": f.optional_point("localLocation"),
    }


def _motion_fields(f: _Fields) -> Dict[str, Any]:
    return {
        "edge": f.optional_enum("edge", Edge),
        "start_location": f.point("startLocation"),
        "local_start_location": f.optional_point("localStartLocation"),
        "translation": f.point("translation"),
        "velocity": f.point("velocity"),
        "predicted_end_location": f.point("predictedEndLocation"),
        "predicted_end_translation": f.point("predictedEndTranslation"),
    }


_GESTURES: Dict[GestureKind, Tuple[Type[Gesture], Callable[[_Fields], Dict[str, Any]]]] = {
    GestureKind.PRESS: (Press, lambda f: {}),
    GestureKind.TAP: (Tap, lambda f: {"count": f.integer("count")}),
    GestureKind.LONG_PRESS: (LongPress, lambda f: {}),
    GestureKind.DRAG: (Drag, _motion_fields),
    GestureKind.SWIPE: (
        Swipe,
        lambda f: {"direction": f.enum("direction", Direction), **_motion_fields(f)},
    ),
    GestureKind.PINCH: (Pinch, lambda f: {"scale": f.number("scale"), "velocity": f.added_number("velocity")}),
    GestureKind.ROTATE: (Rotate, lambda f: {"rotation": f.number("rotation"), "velocity": f.added_number("velocity")}),
}


def _gesture(f: _Fields) -> Gesture:
    common = _common_gesture_fields(f)
    kind, own_fields = _GESTURES[common["gesture"]]
    return kind(**common, **own_fields(f))


def _counters(f: _Fields) -> Counters:
    c = f.nested("counters", "an object of counters")
    return Counters(
        c.integer("events"), c.integer("sent"), c.integer("dropped"), c.integer("connections"),
        c.integer("rejected"), c.integer("slowDisconnects"),
    )


def _ghosts(f: _Fields) -> Tuple[GhostSeries, ...]:
    if "ghosts" not in f.values:
        return ()
    return tuple(
        GhostSeries(ghost.string("device"), ghost.point("location"), ghost.integer("period"), ghost.integer("count"))
        for ghost in f.objects("ghosts", 'an array of {"device", "location", "period", "count"} objects')
    )


def _metrics(f: _Fields) -> Metrics:
    latency = f.nested("latency", "an object of buckets, count and sum")
    return Metrics(
        f.integer("uptime"), f.devices("devices"), f.integer("clients"), f.integer("dropped"), f.optional_integer("lastTouch"),
        tuple(
            MetricsGestureSeries(
                series.string("device"), series.optional_string("region"),
                tuple(
                    MetricsGestureCount(count.enum("gesture", GestureKind), count.enum("phase", Phase), count.integer("count"))
                    for count in series.objects("counts", 'an array of {"gesture", "phase", "count"} objects')
                ),
            )
            for series in f.objects("gestures", 'an array of {"device", "region", "counts"} objects')
        ),
        tuple(
            MetricsInputs(
                inputs.string("device"), inputs.integer("touches"), inputs.integer("synDropped"), inputs.counts("filtered")
            )
            for inputs in f.objects("inputs", 'an array of {"device", "touches", "synDropped"} objects')
        ),
        Latency(
            tuple(
                LatencyBucket(bucket.integer("le"), bucket.integer("count"))
                for bucket in latency.objects("buckets", 'an array of {"le", "count"} objects')
            ),
            latency.integer("count"), latency.integer("sum"),
        ),
    )


_DECODERS: Dict[str, Callable[[_Fields], Message]] = {
    "hello": lambda f: Hello(f.integer("protocol"), f.string("server"), f.string("version"), f.devices("devices")),
    "gesture": _gesture,
    "touch": lambda f: Touch(
        f.enum("phase", TouchPhase), f.integer("touch"), f.integer("seq"), f.integer("time"), f.string("device"),
        f.point("location"),
    ),
    "device": lambda f: Device(
        f.enum("phase", DevicePhase), f.integer("seq"), f.integer("time"), f.string("device"),
        f.device_kind("kind"), f.optional_string("path"),
    ),
    "activity": lambda f: Activity(f.enum("phase", ActivityPhase), f.integer("seq"), f.integer("time")),
    "pong": lambda f: Pong(f.integer("time")),
    "status": lambda f: Status(
        f.integer("protocol"), f.string("version"), f.integer("uptime"), f.optional_integer("lastTouch"), f.devices("devices"),
        f.integer("clients"), f.integer("maxClients"), _counters(f), _ghosts(f),
    ),
    "metrics": _metrics,
    "error": lambda f: ErrorMessage(f.string("message")),
    "overflow": lambda f: Overflow(f.integer("dropped")),
    "goodbye": lambda f: Goodbye(f.string("reason")),
}


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode(line: Union[str, bytes]) -> ServerMessage:
    """Decodes one line from the daemon (with or without its newline).

    Raises :class:`~gestured_client.ProtocolError` for a line that is not a JSON object,
    lacks ``type`` or a field its type requires, or holds a value of the wrong type.
    """
    if isinstance(line, bytes):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ProtocolError(f"not UTF-8 ({error.reason} at byte {error.start})", line) from None
    else:
        text = line
    text = text.rstrip("\n")
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:
        raise ProtocolError(f"not JSON ({error})", text) from None
    if not isinstance(value, dict):
        raise ProtocolError("not a JSON object", text)
    kind = value.get("type")
    if not isinstance(kind, str):
        raise ProtocolError('a message needs a string "type"', text)
    decoder = _DECODERS.get(kind)
    if decoder is None:
        return Unknown(kind, value, f'unknown message type "{kind}"')
    try:
        message = decoder(_Fields(value, text, f"a {kind} line"))
    except _UnknownValue as unknown:
        return Unknown(kind, value, str(unknown))
    return cast(ServerMessage, message)
