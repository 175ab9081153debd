"""docs/protocol.md, read by the test so it cannot drift: every example line decodes, and
encodes back to the same JSON object; every message type and gesture kind the document
names is one the client knows."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Dict, List, get_args

import pytest

import gestured_client as gc
from conftest import REPO

#: The document (another checkout's with GESTURED_PROTOCOL_DOC, to try a branch's).
DOC = Path(os.environ.get("GESTURED_PROTOCOL_DOC", REPO / "docs" / "protocol.md"))
REQUEST_TYPES = {"subscribe", "ping"}  # and "status"/"metrics", which share a name with their reply


def example_lines() -> List[str]:
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(), flags=re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def named_in_doc(row_start: str) -> List[str]:
    """The backquoted names of the line of the document starting with `row_start`."""
    line = next(line for line in DOC.read_text().splitlines() if line.startswith(row_start))
    return re.findall(r"`([a-z-]+)`", line.split(":", 1)[1] if ":" in line else line)


def server_example_lines() -> List[str]:
    return [line for line in example_lines() if json.loads(line)["type"] not in REQUEST_TYPES]


def test_every_message_the_daemon_sends_has_an_example_this_client_decodes_to_its_class() -> None:
    """The Swift suite (DocumentedExamplesTests) holds the examples to the encoder's own
    bytes and to one of every message and gesture kind it writes; so a message class
    this client lacks, or one no example reaches, fails here."""
    examples = server_example_lines()
    assert {json.loads(line)["type"] for line in examples} == set(named_in_doc("| `type` |"))
    decoded = {type(gc.decode(line)) for line in examples}
    assert decoded == set(get_args(gc.ServerMessage)) - {gc.Unknown}


@pytest.mark.parametrize("line", server_example_lines())
def test_every_example_decodes_and_encodes_back(line: str) -> None:
    message = gc.decode(line)
    assert not isinstance(message, gc.Unknown), message
    assert message.to_wire() == json.loads(line)
    assert gc.decode(line.encode() + b"\n") == message


@pytest.mark.parametrize("line", [line for line in example_lines() if json.loads(line)["type"] == "subscribe"])
def test_every_example_request_is_what_the_client_sends(line: str) -> None:
    fields: Dict[str, Any] = json.loads(line)
    fields.pop("type")
    request = gc.Subscribe.of(**fields)
    assert json.loads(gc.encode(request)) == json.loads(line)


def test_every_message_type_the_document_lists_is_known() -> None:
    types = named_in_doc("| `type` |")
    assert "gesture" in types and "goodbye" in types, types
    for kind in types:
        assert not isinstance(_decode_or_problem(kind), gc.Unknown), kind


def _decode_or_problem(kind: str) -> object:
    """A line of `kind` with no other fields: a known type needs fields (ProtocolError),
    an unknown one decodes as Unknown."""
    try:
        return gc.decode(json.dumps({"type": kind}))
    except gc.ProtocolError as error:
        return error


def test_every_gesture_kind_the_document_lists_is_known() -> None:
    kinds = named_in_doc("- `gesture`:")
    assert len(kinds) >= 7, kinds
    assert {kind.value for kind in gc.GestureKind} == set(kinds)
