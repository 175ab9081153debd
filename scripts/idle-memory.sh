#!/usr/bin/env bash
# Idle resident memory of the packaged binaries (docs/performance.md "Idle memory"; the aim is
# at most 12 MiB for `gestured` and 16 MiB for `gestured-web`). Printed, never judged.
#
#   scripts/idle-memory.sh [--bin-path DIR] [--runs N]     (default: scripts/build-release.sh, 4 runs)
#
# Each binary is stripped exactly as scripts/package-deb.sh strips it, then, N times: the
# stripped file is evicted from the page cache (posix_fadvise DONTNEED), the process started
# (`gestured run --no-devices --socket S`; `gestured-web --listen 127.0.0.1:PORT --config EMPTY
# --socket S`, no browser), and after 3 s its VmRSS read; the first run's split per mapping and
# per ELF section is printed by scripts/memory-accounting.py.
#
# Why evict: how a file's pages sit in the page cache decides how many of them a fault maps.
# Written by the linker, strip, cp or dpkg, a file can sit in large folios (ext4 on recent
# kernels), and a fault on one maps the whole folio: the same binary then measured 0.5–1 MiB
# more, differently from one run to the next. Read back by faults from a cold cache, as after a
# reboot, it is in small folios and the figure is the pages the process touched, plus the
# kernel's fault-around (64 KiB), the same every run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin_path="" runs=4
while [[ $# -gt 0 ]]; do
    case $1 in
        --bin-path) bin_path=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        *) echo "usage: scripts/idle-memory.sh [--bin-path DIR] [--runs N]" >&2; exit 2 ;;
    esac
done
[[ -n $bin_path ]] || bin_path=$(scripts/build-release.sh gestured gestured-web | tail -n 1)
work=$(mktemp -d)
pid=""
cleanup() {
    [[ -n $pid ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
: >"$work/empty.toml"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

evict() {
    python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
}

for binary in gestured gestured-web; do
    strip --remove-section=.comment --remove-section=.note --strip-unneeded -o "$work/$binary" "$bin_path/$binary"
    sync "$work/$binary"
    figures=()
    for run in $(seq "$runs"); do
        evict "$work/$binary"
        rm -f "$work/socket"
        if [[ $binary == gestured ]]; then
            "$work/gestured" run --no-devices --socket "$work/socket" >/dev/null 2>&1 &
        else
            "$work/gestured-web" --listen "127.0.0.1:$port" --config "$work/empty.toml" --socket "$work/socket" >/dev/null 2>&1 &
        fi
        pid=$!
        sleep 3
        kill -0 "$pid" || { echo "idle-memory: $binary exited" >&2; exit 1; }
        figures+=("$(awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")")
        [[ $run == 1 ]] && python3 scripts/memory-accounting.py "$pid" | sed "s/^/  $binary: /"
        kill "$pid"
        wait "$pid" 2>/dev/null || true
        pid=""
    done
    echo "idle-memory: $binary VmRSS MiB over $runs cold starts: ${figures[*]}"
done
