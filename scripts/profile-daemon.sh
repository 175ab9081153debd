#!/usr/bin/env bash
# The daemon's instructions per frame, load-independent (docs/performance.md "The loop around
# the encoder"): callgrind counts what `gestured run --replay` executes inside the
# loop's turns (`sd_event_run`: the wait, every dispatch, the writes to the client), with one
# client subscribed with touch lines (TOUCHES=0: gestures only), over demo/demo.events played
# once and played three times in a row. The difference between the two is two passes of
# steady state, without what a process pays once (first use of each code path, the client's
# connection, the device's announcement): instructions per frame and per line are that
# difference over the frames and lines of two passes; the cold start is the rest.
#
#   scripts/profile-daemon.sh [OUT]     (OUT: where the profiles and lines go; default a
#                                        temporary directory, removed)
#   GESTURED=path/to/gestured scripts/profile-daemon.sh   (profile that binary instead)
#   FINGERS=5 scripts/profile-daemon.sh   (instead of the demo: the side-by-side benchmark's
#                                          stroke, N fingers circling on the corpus's ELAN
#                                          touchscreen, 400 frames at 200 Hz, then lifted)
#
# Prints instructions and calls per frame: under software emulation (the VM benchmarks) a
# call and its return cost far more than their instructions (docs/performance.md "Side by
# side with a bare forwarder").
#
# Also writes OUT/lines-1 and OUT/lines-3: what the client received, every `time` made
# relative to the first (a replay's times start at the loop's clock), to compare two builds
# byte for byte with cmp (the device's removal is stamped with the loop's clock when it
# happens: its `time` is the one field that may differ).
#
# Needs valgrind (callgrind; 3.19 cannot read Swift 6's DWARF 5, so the binary's debug
# information is stripped first) and python3. A benchmark: it prints figures and asserts
# nothing; scripts/test.sh does not run it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
for tool in valgrind callgrind_annotate python3 objcopy; do
    command -v "$tool" >/dev/null || { echo "scripts/profile-daemon.sh: needs $tool" >&2; exit 1; }
done
touches=${TOUCHES:-1}
if [[ $# -gt 0 ]]; then
    work=$1
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
binary=${GESTURED:-$(scripts/build-release.sh gestured)/gestured}
objcopy --strip-debug "$binary" "$work/gestured"
: >"$work/empty.toml"

recording=demo/demo.events
if [[ -n ${FINGERS:-} ]]; then
    recording=$work/circle.events
    python3 - "${GESTURED_CORPUS:-../shared/corpus}/evemu-devices/touchscreens/ELAN Touchscreen.desc" "$FINGERS" "$recording" <<'PYTHON'
import math, sys
description, fingers, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = [line for line in open(description).read().splitlines() if not line.startswith("E:")]
x_max, y_max = 3312, 1872  # the description's ABS_MT_POSITION_X/Y maxima
def frame(time, events):
    lines.extend("E: %.6f %04x %04x %d" % ((time,) + event) for event in events + [(0, 0, 0)])
for n in range(401):  # as gestured-e2e's streamCircle: each finger on a circle, 200 frames a turn
    events, first = [], None
    for finger in range(fingers):
        angle = (n / 200 + finger / fingers) * 2 * math.pi
        x, y = int((0.5 + 0.2 * math.cos(angle)) * x_max), int((0.5 + 0.2 * math.sin(angle)) * y_max)
        first = first or (x, y)
        events += [(3, 0x2F, finger)] + ([(3, 0x39, 100 + finger)] if n == 0 else []) + [(3, 0x35, x), (3, 0x36, y)]
    frame(0.5 + n * 0.005, events + ([(1, 0x14A, 1)] if n == 0 else []) + [(3, 0, first[0]), (3, 1, first[1])])
lifts = [event for finger in range(fingers) for event in [(3, 0x2F, finger), (3, 0x39, -1)]]
frame(0.5 + 401 * 0.005, lifts + [(1, 0x14A, 0)])
open(out, "w").write("\n".join(lines) + "\n")
PYTHON
fi

# The recording three times in a row, each pass one second after the previous one's end.
python3 - "$recording" "$work/demo-3.events" <<'PYTHON'
import sys
lines = open(sys.argv[1]).read().splitlines()
header = [line for line in lines if not line.startswith("E:")]
events = [line.split() for line in lines if line.startswith("E:")]
length = float(events[-1][1]) + 1.0
with open(sys.argv[2], "w") as out:
    out.write("\n".join(header) + "\n")
    for n in range(3):
        for fields in events:
            out.write(" ".join([fields[0], "%.6f" % (float(fields[1]) + n * length)] + fields[2:]) + "\n")
PYTHON

# One run: the daemon under callgrind, collecting inside the loop's turns only (sd_event_run,
# each turn of sd-event's loop); a client that
# subscribes and reads until the replay device is removed. Prints the instructions.
profile() {
    local recording=$1 name=$2
    rm -f "$work/socket"
    valgrind --tool=callgrind --collect-atstart=no --toggle-collect=sd_event_run \
        --callgrind-out-file="$work/profile-$name" "$work/gestured" run --config "$work/empty.toml" \
        --replay "$recording" --speed 1 --wait-for-subscriber --exit-after-replay --socket "$work/socket" \
        >"$work/daemon-$name.log" 2>&1 &
    local daemon=$!
    python3 - "$work/socket" "$work/lines-$name" "$touches" <<'PYTHON'
import json, re, socket, sys, time
path, out, touches = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
client = socket.socket(socket.AF_UNIX)
for _ in range(600):
    try:
        client.connect(path)
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("scripts/profile-daemon.sh: the daemon did not listen")
client.sendall((json.dumps({"type": "subscribe", "touches": True} if touches else {"type": "subscribe"}) + "\n").encode())
data = b""
while b'"phase":"removed"' not in data:
    chunk = client.recv(1 << 16)
    if not chunk:
        break
    data += chunk
text = data.decode()
start = min(int(t) for t in re.findall(r'"time":(\d+)', text))
open(out, "w").write(re.sub(r'"time":(\d+)', lambda m: '"time":%d' % (int(m.group(1)) - start), text))
PYTHON
    wait "$daemon" || true
    callgrind_annotate "$work/profile-$name" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
}
once=$(profile "$recording" 1)
thrice=$(profile "$work/demo-3.events" 3)
frames=$(grep -c '^E: .* 0000 0000 0$' "$recording")
# Calls (every callee, every call site) in a callgrind profile.
calls() { awk '/^calls=/ { split($1, count, "="); sum += count[2] } END { print sum + 0 }' "$work/profile-$1"; }
steady_calls=$(($(calls 3) - $(calls 1)))
count() { grep -c "\"type\":\"$1\"" "$work/lines-1" || true; }
touch_lines=$(count touch) gesture_lines=$(count gesture)
steady=$((thrice - once))
lines=$((touch_lines + gesture_lines))
echo "profile-daemon: $(basename "$binary"), touch lines $([[ $touches == 1 ]] && echo on || echo off)"
echo "profile-daemon: $(basename "$recording"): $frames frames, $touch_lines touch and $gesture_lines gesture lines a pass"
echo "profile-daemon: one pass $once instructions, three passes $thrice"
echo "profile-daemon: steady state $((steady / (2 * frames))) instructions per frame, $((steady / (2 * lines))) per line, $((steady_calls / (2 * frames))) calls per frame"
echo "profile-daemon: cold start (one pass minus a steady pass) $((once - steady / 2)) instructions"
echo "profile-daemon: profiles and lines in $work"
