#!/usr/bin/env bash
# The daemon benchmark (docs/performance.md, "Daemon (host)"): a release `gestured` measured
# from outside by `daemon-bench` (Benchmarks/Sources/daemon-bench, Glibc only):
#  - delivery latency (client receipt − event `time`, both CLOCK_MONOTONIC) for 1, 100 and
#    1000 subscribed clients while `gestured run --replay --speed 1` plays ten fingers at
#    240 Hz for 10 s (drag + pinch + rotate: a gesture line per recognizer per frame),
#    with the daemon's CPU and resident memory;
#  - idle: `gestured run --no-devices` with one subscribed client that sends nothing, for
#    60 s, without and with WATCHDOG_USEC (the unit's WatchdogSec=30): wakeups, CPU, memory;
#  - soak: 2000 subscribed clients that never read and one that reads everything while the
#    ten fingers loop, for 5 minutes: a new client's hello and status round trip every
#    second, the reader's latency, the daemon's RSS over time, SIGTERM to exit;
#  - reload: how long a SIGHUP reload holds the loop, for the shipped configuration and the
#    largest files the configuration limits allow;
#  - web: the WebSocket bridge (Benchmarks/web-bench.py, websockets from web/venv.sh): the same
#    ten-finger stream to WEB_CLIENTS browsers through a release gestured-web and as many
#    direct Unix-socket clients at once, latency of each and what the bridge adds, its CPU,
#    and its resident memory idle.
# Environment: CLIENTS="1 100 1000", SECONDS_OF_TOUCH=10, IDLE_SECONDS=60, WATCHDOG_USEC=30000000,
# STALLED=2000, SOAK_SECONDS=300, RELOADS=20, WEB_CLIENTS=10; ONLY="latency idle soak reload web"
# picks parts.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
clients="${CLIENTS:-1 100 1000}"
touch_seconds="${SECONDS_OF_TOUCH:-10}"
idle_seconds="${IDLE_SECONDS:-60}"
watchdog_usec="${WATCHDOG_USEC:-30000000}"
stalled="${STALLED:-2000}"
soak_seconds="${SOAK_SECONDS:-300}"
reloads="${RELOADS:-20}"
web_clients="${WEB_CLIENTS:-10}"
only=" ${ONLY:-latency idle soak reload web} "

build() {  # quiet unless the build fails
    local log
    log="$(mktemp)"
    (cd "$1" && swift build -c release --product "$2" >"$log" 2>&1) || { cat "$log"; rm -f "$log"; exit 1; }
    rm -f "$log"
}
# What ships (static Swift runtime, the release link flags): scripts/build-release.sh, the one
# place release builds are made (another `swift build -c release` would relink them differently).
release_bin="$("$root/scripts/build-release.sh" gestured)"
build "$root/Benchmarks" daemon-bench
gestured="$release_bin/gestured"
bench="$root/Benchmarks/.build/release/daemon-bench"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), kernel $(uname -r)"
echo "swift:   $(swift --version 2>&1 | head -1)"
rows=()
run() {
    echo
    echo "== $* (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    local output
    output="$("$bench" "$@" --gestured "$gestured")" || { echo "$output"; echo "FAILED: $*" >&2; exit 1; }
    echo "$output" | grep -v '^ROW|'
    rows+=("$(echo "$output" | sed -n 's/^ROW|/|/p')")
}
# Prints a table: its header line, then the rows gathered since the last table.
table() {
    echo
    echo "$1"
    local columns separator="|---|"
    columns=$(( $(echo "$1" | tr -cd '|' | wc -c) - 1 ))
    for (( i = 1; i < columns; i++ )); do separator+="---:|"; done
    echo "$separator"
    printf '%s\n' "${rows[@]}"
    rows=()
}
if [[ "$only" == *" latency "* ]]; then
    for n in $clients; do
        run latency --clients "$n" --seconds "$touch_seconds"
    done
    table "| clients | latency p50 | p99 | max | gesture lines received | dropped | daemon CPU (% of one core) | RSS, clients connected | peak RSS (VmHWM) |"
fi
if [[ "$only" == *" idle "* ]]; then
    run idle --seconds "$idle_seconds"
    run idle --seconds "$idle_seconds" --watchdog-usec "$watchdog_usec"
    table "| idle for ${idle_seconds} s | wakeups per minute | CPU per minute | watchdog pings | VmRSS | VmHWM |"
fi
if [[ "$only" == *" soak "* ]]; then
    run soak --stalled "$stalled" --seconds "$soak_seconds"
    table "| clients (stalled + reading) | duration | new client hello p50 / max | status p50 / max | reader latency p50 / p99 / max | reader dropped | RSS, clients connected | RSS at the end | peak RSS | daemon CPU | SIGTERM to exit |"
fi
if [[ "$only" == *" reload "* ]]; then
    run reload --reloads "$reloads"
    table "| configuration reloaded (SIGHUP) | loop held, p50 | max |"
fi
if [[ "$only" == *" web "* ]]; then
    "$root/scripts/build-release.sh" gestured-web >/dev/null
    python=$("$root/web/venv.sh")
    recording="$(mktemp)"
    "$bench" recording "$recording" --seconds "$touch_seconds"
    echo
    echo "== web bridge, $web_clients browsers (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    output="$("$python" "$root/Benchmarks/web-bench.py" "$gestured" "$release_bin/gestured-web" "$recording" \
        --clients "$web_clients" --seconds "$touch_seconds")" || { echo "$output"; rm -f "$recording"; echo "FAILED: web" >&2; exit 1; }
    rm -f "$recording"
    echo "$output" | grep -v '^ROW|'
    rows+=("$(echo "$output" | sed -n 's/^ROW|/|/p')")
    table "| clients of each kind | direct p50 | direct p99 | WebSocket p50 | WebSocket p99 | bridge adds (p99) | dropped | bridge CPU | bridge idle RSS | bridge peak RSS |"
fi
