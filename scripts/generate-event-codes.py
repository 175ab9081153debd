#!/usr/bin/env python3
"""Generates the table of evdev names in Sources/Recordings/EventCodeNames.swift from the
kernel's linux/input-event-codes.h (Debian's linux-libc-dev).

    scripts/generate-event-codes.py            # print the table
    scripts/generate-event-codes.py --write    # rewrite the table in EventCodeNames.swift
    scripts/generate-event-codes.py --check    # fail if the file's table is not what the header gives

One line per name, `KIND NAME VALUE`, in the header's order: KIND is `P` for an
`INPUT_PROP_*` property, `T` for an `EV_*` event type, or the event type's number for a code
(`SYN_` 0, `KEY_`/`BTN_` 1, `REL_` 2, `ABS_` 3, `MSC_` 4, `SW_` 5, `LED_` 17, `SND_` 18,
`REP_` 20). Aliases (`#define BTN_MISC BTN_0`, `(ABS_MT_FIRST + 1)`) are resolved to their
number; the range markers (`*_MAX`, `*_CNT`, `KEY_MIN_INTERESTING`) are left out.
"""

import argparse
import re
import sys
from pathlib import Path

HEADER = Path("/usr/include/linux/input-event-codes.h")
SWIFT = Path(__file__).resolve().parent.parent / "Sources/Recordings/EventCodeNames.swift"
OPENING = 'private static let table = """\n'
CLOSING = '        """'
INDENT = "        "

TYPES = {"SYN": 0, "KEY": 1, "BTN": 1, "REL": 2, "ABS": 3, "MSC": 4, "SW": 5, "LED": 17, "SND": 18, "REP": 20}


def value(text: str, known: dict) -> int | None:
    """A #define's value: a number, a name defined before, or `(NAME + N)`."""
    if text in known:
        return known[text]
    try:
        return int(text, 0)
    except ValueError:
        pass
    match = re.fullmatch(r"\((\w+)\s*\+\s*(\w+)\)", text)
    if match:
        left, right = value(match.group(1), known), value(match.group(2), known)
        if left is not None and right is not None:
            return left + right
    return None


def table(header: str) -> list[str]:
    known: dict[str, int] = {}
    lines = []
    for match in re.finditer(r"^#define\s+(\w+)\s+(\([^)]*\)|\S+)", header, re.M):
        name, number = match.group(1), value(match.group(2), known)
        if number is None:
            continue
        known[name] = number
        if name.endswith(("_MAX", "_CNT")) or name == "KEY_MIN_INTERESTING":
            continue
        if name.startswith("INPUT_PROP_"):
            lines.append(f"P {name} {number}")
        elif name.startswith("EV_"):
            lines.append(f"T {name} {number}")
        elif name.split("_")[0] in TYPES:
            lines.append(f"{TYPES[name.split('_')[0]]} {name} {number}")
    return lines


def split_swift(source: str) -> tuple[str, list[str], str]:
    """The Swift file around its table, and the table's lines."""
    start = source.index(OPENING) + len(OPENING)
    end = source.index(CLOSING, start)
    return source[:start], [line.strip() for line in source[start:end].splitlines()], source[end:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help="rewrite the table in EventCodeNames.swift")
    action.add_argument("--check", action="store_true", help="fail if EventCodeNames.swift differs from the header")
    arguments = parser.parse_args()

    generated = table(HEADER.read_text())
    if not (arguments.write or arguments.check):
        print("\n".join(generated))
        return 0
    before, current, after = split_swift(SWIFT.read_text())
    if arguments.check:
        if current == generated:
            print(f"{SWIFT.name}: {len(generated)} names, as {HEADER} gives them")
            return 0
        missing = [line for line in generated if line not in current]
        extra = [line for line in current if line not in generated]
        print(f"{SWIFT.name} differs from {HEADER}: run {sys.argv[0]} --write", file=sys.stderr)
        print(f"  not in the file: {missing[:5]}\n  not in the header: {extra[:5]}", file=sys.stderr)
        return 1
    SWIFT.write_text(before + "".join(f"{INDENT}{line}\n" for line in generated) + after)
    return 0


if __name__ == "__main__":
    sys.exit(main())
