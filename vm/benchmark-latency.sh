#!/usr/bin/env bash
# The side-by-side latency benchmark: gestured's socket delivery against a bare
# evdev → socket forwarder, on the same uinput touchscreen in one VM boot, alternating.
# A benchmark: it prints figures (BENCH lines) and asserts nothing; scripts/test.sh does
# not run it.
#
#   vm/benchmark-latency.sh [--rounds N] [--frames N] [--interval MS] [--fingers N]
#   vm/benchmark-latency.sh --profile [--fingers N]
#
# Builds the packaged (release, static Swift runtime) gestured and the driver
# (gestured-e2e) on the host, boots the VM once and runs `gestured-e2e --side-by-side N`:
# per round the bare forwarder (`gestured-e2e --forward`: libevdev read, one line per frame,
# one send), then `gestured run` with a client subscribed with touch lines, then with
# gestures only; each process is started for its run and stopped after it. Defaults: 3
# rounds, 5 fingers circling, a frame every 5 ms (200 Hz) for 1600 frames (8 s).
# Method and figures: docs/performance.md "Side by side with a bare forwarder".
#
# --profile: instead of timing, counts what the packaged daemon executes per frame of the
# same live stroke in the guest: `gestured run` under callgrind (counting inside the loop's
# turns, as scripts/profile-daemon.sh does on the host), one round at 20 Hz (the daemon under
# valgrind keeps up), once with 60 frames and once with 180; the difference over 120 frames
# is the steady state. Prints instructions and calls per frame with touch lines and with
# gestures only (under emulation calls cost far more than their instructions). Needs valgrind.
#
# Exit status: the driver's (0 unless a run received nothing), 0 with "SKIP: ..." when qemu
# cannot run here, 124 when the guest never reported.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
rounds=3 frames=1600 interval=5 fingers=5 profile=0
while (($#)); do
    case "$1" in
        --rounds) rounds=${2:?--rounds needs a number}; shift ;;
        --frames) frames=${2:?--frames needs a number}; shift ;;
        --interval) interval=${2:?--interval needs milliseconds}; shift ;;
        --fingers) fingers=${2:?--fingers needs a number}; shift ;;
        --profile) profile=1 ;;
        *) echo "vm/benchmark-latency: unknown option $1 (--rounds N, --frames N, --interval MS, --fingers N, --profile)" >&2; exit 2 ;;
    esac
    shift
done

set +e; vm/setup.sh; rc=$?; set -e
((rc == 77)) && { echo "SKIP: vm/benchmark-latency: qemu is not available (see above)"; exit 0; }
((rc == 0)) || { echo "vm/benchmark-latency: vm/setup.sh failed ($rc)" >&2; exit "$rc"; }
# shellcheck source=vm/corpus.sh
source vm/corpus.sh

bin=$(scripts/build-release.sh gestured gestured-e2e)

if ((profile)); then
    for tool in valgrind callgrind_annotate objcopy; do
        command -v "$tool" >/dev/null || { echo "vm/benchmark-latency: --profile needs $tool" >&2; exit 1; }
    done
    # Inside the work directory: the guest sees it, read-write, at the same path.
    out=$root/.build/latency-profile
    rm -rf "$out"
    mkdir -p "$out"
    # valgrind 3.19 cannot read Swift 6's DWARF 5: the debug information goes.
    objcopy --strip-debug "$bin/gestured" "$out/gestured"
    cat >"$out/gestured-callgrind" <<WRAPPER
#!/bin/sh
exec valgrind --tool=callgrind --collect-atstart=no \\
    --toggle-collect='\$s6Daemon9EventLoopC7iterate*waitingS2b_t11SystemCalls0P5ErrorVYKF' \\
    --callgrind-out-file="$out/profile-\$PROFILE_FRAMES-%p" "$out/gestured" "\$@"
WRAPPER
    chmod +x "$out/gestured-callgrind"
    for count in 60 180; do
        set +e
        vm/run.sh --timeout 900 --share "$corpus" -- env PROFILE_FRAMES=$count \
            "$bin/gestured-e2e" --corpus "$corpus" --gestured "$out/gestured-callgrind" --work /run/gestured-bench \
            --side-by-side 1 --side-by-side-frames $count --interval 50 --fingers "$fingers" >"$out/run-$count.log" 2>&1
        rc=$?
        set -e
        ((rc == 77)) && { echo "SKIP: vm/benchmark-latency: qemu cannot run here"; exit 0; }
        ((rc == 0)) || { echo "vm/benchmark-latency: the profiled run failed ($rc): $(tail -5 "$out/run-$count.log")" >&2; exit "$rc"; }
    done
    instructions() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'; }
    calls() { awk '/^calls=/ { split($1, count, "="); sum += count[2] } END { print sum + 0 }' "$1"; }
    # Each run starts the daemon twice: touch lines on first, then gestures only (lower pid first).
    # shellcheck disable=SC2012  # our own file names (no newlines); ls also drops a pattern that matched nothing
    mapfile -t short < <(ls "$out"/profile-60-* | sort -t- -k3 -n)
    # shellcheck disable=SC2012  # our own file names (no newlines); ls also drops a pattern that matched nothing
    mapfile -t long < <(ls "$out"/profile-180-* | sort -t- -k3 -n)
    ((${#short[@]} == 2 && ${#long[@]} == 2)) || { echo "vm/benchmark-latency: expected two profiles per run in $out" >&2; exit 1; }
    labels=("touch lines on" "gestures only")
    for i in 0 1; do
        echo "BENCH latency-profile gestured (${labels[$i]}), $fingers fingers, live in the guest:" \
            "$((($(instructions "${long[$i]}") - $(instructions "${short[$i]}")) / 120)) instructions and" \
            "$((($(calls "${long[$i]}") - $(calls "${short[$i]}")) / 120)) calls per frame (profiles in $out)"
    done
    exit 0
fi
echo "vm/benchmark-latency: host load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
set +e
vm/run.sh --timeout 900 --share "$corpus" -- \
    "$bin/gestured-e2e" --corpus "$corpus" --gestured "$bin/gestured" --work /run/gestured-bench \
    --side-by-side "$rounds" --side-by-side-frames "$frames" --interval "$interval" --fingers "$fingers"
rc=$?
set -e
echo "vm/benchmark-latency: host load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
((rc == 77)) && { echo "SKIP: vm/benchmark-latency: qemu cannot run here (see above)"; exit 0; }
exit "$rc"
