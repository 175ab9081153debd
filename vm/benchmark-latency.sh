#!/usr/bin/env bash
# Issue 21's side-by-side latency benchmark: gestured's socket delivery against a bare
# evdev → socket forwarder, on the same uinput touchscreen in one VM boot, alternating.
# A benchmark: it prints figures (BENCH lines) and asserts nothing; scripts/test.sh does
# not run it.
#
#   vm/benchmark-latency.sh [--rounds N] [--frames N] [--interval MS] [--fingers N]
#
# Builds the packaged (release, static Swift runtime) gestured and the driver
# (gestured-e2e) on the host, boots the VM once and runs `gestured-e2e --side-by-side N`:
# per round the bare forwarder (`gestured-e2e --forward`: libevdev read, one line per frame,
# one send), then `gestured run` with a client subscribed with touch lines, then with
# gestures only; each process is started for its run and stopped after it. Defaults: 3
# rounds, 5 fingers circling, a frame every 5 ms (200 Hz) for 1600 frames (8 s).
# Method and figures: docs/performance.md "Side by side with a bare forwarder".
#
# Exit status: the driver's (0 unless a run received nothing), 0 with "SKIP: ..." when qemu
# cannot run here, 124 when the guest never reported.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
rounds=3 frames=1600 interval=5 fingers=5
while (($#)); do
    case "$1" in
        --rounds) rounds=${2:?--rounds needs a number}; shift ;;
        --frames) frames=${2:?--frames needs a number}; shift ;;
        --interval) interval=${2:?--interval needs milliseconds}; shift ;;
        --fingers) fingers=${2:?--fingers needs a number}; shift ;;
        *) echo "vm/benchmark-latency: unknown option $1 (--rounds N, --frames N, --interval MS, --fingers N)" >&2; exit 2 ;;
    esac
    shift
done

set +e; vm/setup.sh; rc=$?; set -e
((rc == 77)) && { echo "SKIP: vm/benchmark-latency: qemu is not available (see above)"; exit 0; }
((rc == 0)) || { echo "vm/benchmark-latency: vm/setup.sh failed ($rc)" >&2; exit "$rc"; }
# shellcheck source=vm/corpus.sh
source vm/corpus.sh

bin=$(scripts/build-release.sh gestured gestured-e2e)
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
