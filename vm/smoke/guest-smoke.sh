#!/usr/bin/env bash
# The VM smoke test; runs inside the guest (vm/test.sh starts it through vm/run.sh).
#
#   vm/smoke/guest-smoke.sh BIN_DIR CORPUS_DIR
#
# BIN_DIR holds evread and uinput-check, built on the host by vm/test.sh. Checks:
#   1. the host's Swift runtime and libevdev work in the guest and create a uinput device
#      (uinput-check);
#   2. evemu-device creates two touchscreens from real descriptions (ELAN, Atmel);
#   3. a real Atmel recording played with evemu-play arrives at a reader that opened the
#      node first: same number of touches and releases, same final position, nothing on
#      the other device.
set -euo pipefail
bin=$(cd "$1" && pwd); corpus=$2
screens="$corpus/evemu-devices/touchscreens"
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT

uptime_s() { cut -d' ' -f1 /proc/uptime; }
say() { echo "smoke [$(uptime_s)]: $*"; }
fail() { echo "smoke: FAIL: $*"; exit 1; }
# Bounded polling for things that happen in another process (not a timing assertion).
wait_for() { # DESCRIPTION TRIES COMMAND...
    local what=$1 tries=$2; shift 2
    until "$@"; do
        ((tries-- > 0)) || fail "$what did not happen"
        sleep 0.1
    done
}

say "swift + libevdev + uinput"
"$bin/uinput-check" || fail "uinput-check"

[[ -d "$screens" ]] || fail "corpus not found at $corpus"
create() { # DESC OUT -> starts evemu-device, echoes the node
    evemu-device "$1" > "$2" 2>&1 &
    pids+=($!)
    wait_for "evemu-device $(basename "$1")" 300 grep -q '/dev/input/event' "$2"
    grep -o '/dev/input/event[0-9]*' "$2"
}
elan=$(create "$screens/ELAN Touchscreen.desc" "$work/elan.out")
atmel=$(create "$screens/Atmel maXTouch Touchscreen.desc" "$work/atmel.out")
say "ELAN at $elan, Atmel at $atmel"

recording="$screens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events"
count() { awk -v t="$1" -v c="$2" -v v="$3" '$1 == "E:" && $3 == t && $4 == c && $5 + 0 == v { n++ } END { print n + 0 }' "$4"; }
last_value() { awk -v t="$1" -v c="$2" '$1 == "E:" && $3 == t && $4 == c { v = $5 + 0 } END { print v }' "$3"; }
touches=$(count 0001 014a 1 "$recording")
releases=$(count 0001 014a 0 "$recording")
((releases > 0)) || fail "no releases in $recording"

"$bin/evread" "$atmel" "$work/atmel.ready" "$releases" 30 > "$work/atmel.events" &
atmel_reader=$!
"$bin/evread" "$elan" "$work/elan.ready" 1 600 > "$work/elan.events" &
elan_reader=$!
pids+=("$elan_reader")
# Events written before a reader opened the node never reach it: wait for both readers.
wait_for "Atmel reader ready" 300 test -e "$work/atmel.ready"
wait_for "ELAN reader ready" 300 test -e "$work/elan.ready"

say "playing $(basename "$recording") ($touches touches)"
play_start=$(uptime_s)
evemu-play "$atmel" < "$recording" || fail "evemu-play"
say "evemu-play took $(awk -v a="$play_start" -v b="$(uptime_s)" 'BEGIN { printf "%.2f", b - a }') s"
wait "$atmel_reader" || { cat "$work/atmel.events"; fail "the reader did not see all $releases releases"; }
kill "$elan_reader" 2>/dev/null || true

got_touches=$(count 0001 014a 1 "$work/atmel.events")
got_releases=$(count 0001 014a 0 "$work/atmel.events")
[[ $got_touches == "$touches" && $got_releases == "$releases" ]] \
    || fail "touches/releases: recorded $touches/$releases, received $got_touches/$got_releases"
for axis in 0000 0001 0035 0036; do
    want=$(last_value 0003 $axis "$recording"); got=$(last_value 0003 $axis "$work/atmel.events")
    [[ "$want" == "$got" ]] || fail "last value of ABS $axis: recorded $want, received $got"
done
grep -q '^N: Atmel maXTouch Touchscreen$' "$work/atmel.events" || fail "Atmel node has another name"
grep -q '^N: ELAN Touchscreen$' "$work/elan.events" || fail "ELAN node has another name"
! grep -q '^E:' "$work/elan.events" || fail "events leaked to the ELAN device"

recorded_span=$(awk '$1 == "E:" { if (!s) s = $2; e = $2 } END { printf "%.3f", e - s }' "$recording")
received_span=$(awk '$1 == "E:" { if (!s) s = $2; e = $2 } END { printf "%.3f", e - s }' "$work/atmel.events")
say "received $(grep -c '^E:' "$work/atmel.events") events, $got_touches touches; span recorded ${recorded_span}s, received ${received_span}s"
say "kernel-to-reader $(grep '^L:' "$work/atmel.events" | cut -c4-)"
say "PASS"
