#!/usr/bin/env bash
# Regenerates packaging/gestured.order, the symbol order scripts/build-release.sh links with
# (docs/performance.md "Idle memory"): the functions `gestured` runs while it starts, takes a
# client and serves gestures and touch lines, so that the linker (lld) places them together
# at the start of .text and the daemon touches a few contiguous pages of its binary instead
# of pages spread over all of it. Run it after large changes to the daemon's code paths; a
# stale order only costs memory (names that no longer exist are skipped), never correctness.
#
#   scripts/link-order.sh
#
# Needs valgrind (callgrind) and socat. Method: a release build (scripts/build-release.sh),
# its debug information stripped (valgrind 3.19 cannot read Swift 6's DWARF 5), runs under
# callgrind as `gestured run --replay demo/demo.events --speed 1 --wait-for-subscriber` with
# one client subscribed with touch lines; every function of the binary callgrind saw run is
# written, in callgrind's order, one mangled name a line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
for tool in valgrind socat python3; do
    command -v "$tool" >/dev/null || { echo "scripts/link-order.sh: needs $tool" >&2; exit 1; }
done
bin=$(scripts/build-release.sh gestured)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
objcopy --strip-debug "$bin/gestured" "$work/gestured"
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/profile" \
    "$work/gestured" run --replay demo/demo.events --speed 1 --wait-for-subscriber --socket "$work/socket" \
    >"$work/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 100); do [[ -S "$work/socket" ]] && break; sleep 0.2; done
# The client stays until the replay ends and the daemon says the device went.
(echo '{"type":"subscribe","touches":true}'; sleep 30) | timeout 60 socat -t 5 - "UNIX-CONNECT:$work/socket" |
    grep -m1 '"phase":"removed"' >/dev/null || true
kill -TERM "$daemon"
wait "$daemon" || true
python3 - "$work/profile" >packaging/gestured.order <<'PYTHON'
import re, sys
names, objects, current, seen = {}, {}, None, set()
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    match = re.match(r"^(c?)ob=\((\d+)\)(?: (.*))?$", line)
    if match:
        if match.group(3):
            objects[match.group(2)] = match.group(3)
        if not match.group(1):
            current = objects.get(match.group(2))
        continue
    match = re.match(r"^(c?)fn=\((\d+)\)(?: (.*))?$", line)
    if match:
        if match.group(3):
            names[match.group(2)] = match.group(3)
        name = names.get(match.group(2))
        if not match.group(1) and current and current.endswith("/gestured") and name and not name.startswith("0x") and name not in seen:
            seen.add(name)
            print(name)
PYTHON
echo "scripts/link-order.sh: packaging/gestured.order: $(wc -l <packaging/gestured.order) functions" >&2
