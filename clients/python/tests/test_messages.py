"""Decoding is strict about the fields it knows (the error names the field and quotes the
line) and lenient about what a newer daemon may add; requests encode as documented."""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest

import gestured_client as gc
from conftest import gesture_line

SWIPE: Dict[str, Any] = {
    "type": "gesture", "gesture": "swipe", "phase": "ended", "id": 9, "seq": 32, "time": 3000180000,
    "device": "ELAN Touchscreen", "region": "page", "fingers": 1, "location": {"x": 0.2, "y": 0.5},
    "localLocation": {"x": 0.2, "y": 0.5}, "direction": "down", "edge": None,
    "startLocation": {"x": 0.8, "y": 0.5}, "localStartLocation": {"x": 0.8, "y": 0.5},
    "translation": {"x": -0.6, "y": 0}, "velocity": {"x": -4.2, "y": 0.01},
    "predictedEndLocation": {"x": -1.8958, "y": 0.505}, "predictedEndTranslation": {"x": -2.6958, "y": 0.005},
}


def with_changes(base: Dict[str, Any], **changes: Any) -> str:
    line = dict(base)
    for key, value in changes.items():
        if value is ...:
            del line[key]
        else:
            line[key] = value
    return json.dumps(line)


def test_a_swipe_decodes_to_typed_fields() -> None:
    swipe = gc.decode(json.dumps(SWIPE))
    assert isinstance(swipe, gc.Swipe) and isinstance(swipe, gc.Motion) and not isinstance(swipe, gc.Drag)
    assert swipe.gesture == "swipe" and swipe.gesture is gc.GestureKind.SWIPE
    assert swipe.direction is gc.Direction.DOWN and swipe.edge is None
    assert swipe.local_start_location == gc.Point(0.8, 0.5)
    assert swipe.translation == gc.Point(-0.6, 0.0) and isinstance(swipe.translation.y, float)
    assert str(swipe.phase) == "ended"


def test_local_locations_are_absent_outside_regions() -> None:
    line = with_changes(SWIPE, region=None, localLocation=..., localStartLocation=...)
    swipe = gc.decode(line)
    assert isinstance(swipe, gc.Swipe)
    assert swipe.local_location is None and swipe.local_start_location is None
    assert "localLocation" not in swipe.to_wire() and swipe.to_wire()["region"] is None


@pytest.mark.parametrize(
    "changes, problem",
    [
        ({"id": "9"}, 'field "id" of a gesture line must be a non-negative integer, not "9"'),
        ({"id": True}, 'field "id" of a gesture line must be a non-negative integer, not true'),
        ({"seq": -1}, 'field "seq" of a gesture line must be a non-negative integer'),
        ({"fingers": 1.5}, 'field "fingers" of a gesture line must be a non-negative integer'),
        ({"time": ...}, 'a gesture line lacks the field "time"'),
        ({"region": 3}, 'field "region" of a gesture line must be a string or null'),
        ({"location": [0.2, 0.5]}, 'field "location" of a gesture line must be an object {"x": number, "y": number}'),
        ({"location": {"x": "0.2", "y": 0.5}}, 'field "x" of "location" of a gesture line must be a number'),
        ({"localLocation": {"x": 0.2}}, '"localLocation" of a gesture line lacks the field "y"'),
        ({"edge": 1}, 'field "edge" of a gesture line must be a string or null'),
        ({"direction": None}, 'field "direction" of a gesture line must be a string'),
        ({"velocity": ...}, 'a gesture line lacks the field "velocity"'),
        ({"gesture": 7}, 'field "gesture" of a gesture line must be a string'),
    ],
)
def test_a_known_field_of_the_wrong_type_is_an_error_naming_it(changes: Dict[str, Any], problem: str) -> None:
    line = with_changes(SWIPE, **changes)
    with pytest.raises(gc.ProtocolError) as raised:
        gc.decode(line)
    assert problem in raised.value.problem
    assert raised.value.line == line
    assert problem in str(raised.value) and "line: " in str(raised.value)


@pytest.mark.parametrize(
    "line, problem",
    [
        (b"not json", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"type": 1}', 'a message needs a string "type"'),
        (b'{"gesture": "tap"}', 'a message needs a string "type"'),
        (b'{"type":"pong","time":NaN}', "NaN is not JSON"),
        (b'{"type":"pong","time":Infinity}', "Infinity is not JSON"),
        (b'{"type":"goodbye","reason":"\xff"}', "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "not JSON"),
        (b'{"type":"status","protocol":1,"version":"1","uptime":1,"lastTouch":null,"devices":[{"name":"a","kind":"touchpad"}],'
         b'"clients":1,"maxClients":2,"counters":{}}', '"devices[0]" of a status line lacks the field "path"'),
        (b'{"type":"status","protocol":1,"version":"1","uptime":1,"lastTouch":5,"devices":[],"clients":1,"maxClients":2,'
         b'"counters":{"events":1}}', '"counters" of a status line lacks the field "sent"'),
        (b'{"type":"status","protocol":1,"version":"1","uptime":1,"lastTouch":5,"devices":[],"clients":1,"maxClients":2,'
         b'"counters":{"events":1,"sent":1,"dropped":0,"connections":1,"rejected":0,"slowDisconnects":0},'
         b'"ghosts":[{"device":"a","location":{"x":0.5,"y":0.5},"count":3}]}',
         '"ghosts[0]" of a status line lacks the field "period"'),
    ],
)
def test_lines_that_are_not_protocol_1_are_errors(line: bytes, problem: str) -> None:
    with pytest.raises(gc.ProtocolError) as raised:
        gc.decode(line)
    assert problem in raised.value.problem
    assert len(str(raised.value)) < 500, "a huge line is quoted in part"


def test_unknown_fields_are_ignored() -> None:
    plain = gc.decode(gesture_line(3))
    assert gc.decode(gesture_line(3, pressure=0.7, hover={"z": 1})) == plain


def test_an_unknown_type_is_unknown_not_an_error() -> None:
    message = gc.decode('{"type":"heartbeat","every":30}')
    assert message == gc.Unknown("heartbeat", {"type": "heartbeat", "every": 30}, 'unknown message type "heartbeat"')
    assert message.to_wire() == {"type": "heartbeat", "every": 30}


@pytest.mark.parametrize(
    "line, reason",
    [
        (gesture_line(1, gesture="wave"), 'unknown gesture "wave"'),
        (gesture_line(1, phase="hovering"), 'unknown phase "hovering"'),
        (json.dumps(dict(SWIPE, direction="diagonal")), 'unknown direction "diagonal"'),
        (json.dumps(dict(SWIPE, edge="notch")), 'unknown edge "notch"'),
        ('{"type":"touch","phase":"hovered","touch":1,"seq":1,"time":1,"device":"d","location":{"x":0,"y":0}}',
         'unknown phase "hovered"'),
        ('{"type":"device","phase":"suspended","seq":1,"time":1,"device":"d","kind":"touchpad","path":null}',
         'unknown phase "suspended"'),
    ],
)
def test_an_enum_value_from_a_newer_daemon_makes_the_line_unknown(line: str, reason: str) -> None:
    message = gc.decode(line)
    assert isinstance(message, gc.Unknown)
    assert message.reason == reason and message.fields == json.loads(line)


def test_a_device_kind_from_a_newer_daemon_stays_a_string() -> None:
    device = gc.decode('{"type":"device","phase":"added","seq":1,"time":5,"device":"Pen","kind":"tablet","path":null}')
    assert isinstance(device, gc.Device) and device.kind == "tablet" and device.path is None
    hello = gc.decode('{"type":"hello","protocol":1,"server":"gestured","version":"9","devices":'
                      '[{"name":"A","kind":"touchscreen","path":"/dev/input/event5"}]}')
    assert isinstance(hello, gc.Hello)
    assert hello.devices == (gc.DeviceInfo("A", gc.DeviceKind.TOUCHSCREEN, "/dev/input/event5"),)


def test_messages_are_frozen_and_hashable() -> None:
    tap = gc.decode(gesture_line(1))
    assert isinstance(tap, gc.Tap) and tap.count == 1
    assert len({tap, gc.decode(gesture_line(1))}) == 1
    with pytest.raises(AttributeError):
        tap.count = 2  # type: ignore[misc]
    assert hash(gc.decode('{"type":"heartbeat"}')) is not None


def test_subscribe_encodes_filters_and_leaves_out_the_absent_ones() -> None:
    request = gc.Subscribe.of(gestures=[gc.GestureKind.LONG_PRESS, "tap"], regions=["menu", None])
    assert gc.encode(request) == b'{"type":"subscribe","gestures":["long-press","tap"],"regions":["menu",null],"touches":false}\n'
    assert gc.encode(gc.Subscribe.of(devices=[], touches=True)) == b'{"type":"subscribe","devices":[],"touches":true}\n'
    assert gc.encode(gc.Ping()) == b'{"type":"ping"}\n'
    assert gc.encode(gc.StatusRequest()) == b'{"type":"status"}\n'


@pytest.mark.parametrize(
    "arguments, problem",
    [
        ({"gestures": "tap"}, "gestures must be a list of names, not the single string 'tap'"),
        ({"devices": ["a", 3]}, "devices must hold strings, not 3"),
        ({"gestures": [None]}, "gestures must hold strings, not None"),
        ({"regions": [b"menu"]}, "regions must hold strings or None, not b'menu'"),
    ],
)
def test_filters_of_the_wrong_shape_are_refused_before_sending(arguments: Dict[str, Any], problem: str) -> None:
    with pytest.raises(TypeError) as raised:
        gc.Subscribe.of(**arguments)
    assert str(raised.value) == problem


def test_a_subscription_accepts_what_the_daemon_would_let_through() -> None:
    tap, drag = gc.decode(gesture_line(1)), gc.decode(gesture_line(2, gesture="drag", **{
        "edge": None, "startLocation": {"x": 0, "y": 0}, "translation": {"x": 0, "y": 0}, "velocity": {"x": 0, "y": 0},
        "predictedEndLocation": {"x": 0, "y": 0}, "predictedEndTranslation": {"x": 0, "y": 0}}))
    in_menu = gc.decode(gesture_line(3, region="menu", localLocation={"x": 0.5, "y": 0.5}))
    touch = gc.decode('{"type":"touch","phase":"began","touch":1,"seq":4,"time":1,"device":"Fake","location":{"x":0,"y":0}}')
    device = gc.decode('{"type":"device","phase":"added","seq":5,"time":1,"device":"Other","kind":"touchpad","path":null}')
    everything = gc.Subscribe()
    assert [everything.accepts(m) for m in (tap, drag, in_menu, touch, device)] == [True, True, True, False, True]
    taps_in_menu = gc.Subscribe.of(gestures=["tap"], regions=["menu"], touches=True)
    assert [taps_in_menu.accepts(m) for m in (tap, drag, in_menu, touch, device)] == [False, False, True, True, True]
    outside = gc.Subscribe.of(regions=[None], devices=["Fake"])
    assert [outside.accepts(m) for m in (tap, drag, in_menu, touch, device)] == [True, True, False, False, False]
    assert everything.accepts(gc.Goodbye("stopping")) and outside.accepts(gc.Overflow(3))


PINCH: Dict[str, Any] = {
    "type": "gesture", "gesture": "pinch", "phase": "changed", "id": 4, "seq": 12, "time": 2000000,
    "device": "ELAN Touchscreen", "region": None, "fingers": 2, "location": {"x": 0.5, "y": 0.5},
    "velocity": 1.25, "scale": 1.2,
}


def test_pinch_and_rotate_carry_their_velocity() -> None:
    pinch = gc.decode(json.dumps(PINCH))
    assert isinstance(pinch, gc.Pinch) and pinch.scale == 1.2 and pinch.velocity == 1.25
    assert pinch.to_wire() == PINCH
    rotate_line = dict(PINCH, gesture="rotate", rotation=-12.5, velocity=-90)
    del rotate_line["scale"]
    rotate = gc.decode(json.dumps(rotate_line))
    assert isinstance(rotate, gc.Rotate) and rotate.rotation == -12.5 and rotate.velocity == -90.0
    with pytest.raises(gc.ProtocolError) as raised:
        gc.decode(with_changes(PINCH, velocity={"x": 1, "y": 0}))
    assert 'field "velocity" of a gesture line must be a number' in raised.value.problem
    with pytest.raises(gc.ProtocolError) as raised:
        gc.decode(with_changes(PINCH, velocity=None))
    assert 'field "velocity" of a gesture line must be a number, not null' in raised.value.problem


def test_a_pinch_or_rotate_from_a_daemon_without_velocity_has_velocity_zero() -> None:
    pinch = gc.decode(with_changes(PINCH, velocity=...))
    assert isinstance(pinch, gc.Pinch) and pinch.scale == 1.2 and pinch.velocity == 0.0
    rotate = gc.decode(with_changes(PINCH, gesture="rotate", scale=..., velocity=..., rotation=3.5))
    assert isinstance(rotate, gc.Rotate) and rotate.rotation == 3.5 and rotate.velocity == 0.0


METRICS: Dict[str, Any] = {
    "type": "metrics", "uptime": 42, "devices": [], "clients": 1, "dropped": 0, "lastTouch": None, "gestures": [],
    "inputs": [{"device": "ELAN Touchscreen", "touches": 4, "synDropped": 0, "filtered": {"bounce": 3, "phantom": 12}},
               {"device": "Pad", "touches": 1, "synDropped": 2}],
    "latency": {"buckets": [], "count": 0, "sum": 0},
}


def test_metrics_report_the_touches_hygiene_filtered() -> None:
    metrics = gc.decode(json.dumps(METRICS))
    assert isinstance(metrics, gc.Metrics)
    assert metrics.inputs[0].filtered == {"bounce": 3, "phantom": 12}
    assert metrics.inputs[1].filtered == {} and metrics.inputs[1].syn_dropped == 2
    assert metrics.to_wire() == METRICS, "an empty filtered is left out, as the daemon does"
    broken = dict(METRICS, inputs=[{"device": "d", "touches": 1, "synDropped": 0, "filtered": {"bounce": "3"}}])
    with pytest.raises(gc.ProtocolError) as raised:
        gc.decode(json.dumps(broken))
    assert 'field "bounce" of "filtered" of "inputs[0]" of a metrics line must be a non-negative integer' in raised.value.problem


def test_a_drag_carries_the_edge_it_started_from() -> None:
    line = with_changes(SWIPE, gesture="drag", phase="changed", direction=..., edge="top")
    drag = gc.decode(line)
    assert isinstance(drag, gc.Drag) and drag.edge is gc.Edge.TOP
    assert drag.to_wire() == json.loads(line)
    with pytest.raises(gc.ProtocolError) as raised:
        gc.decode(with_changes(SWIPE, gesture="drag", direction=..., edge=...))
    assert 'a gesture line lacks the field "edge"' in raised.value.problem
