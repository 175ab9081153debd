# shellcheck shell=bash
# Sourced by scripts/test.sh: one scope for everything a test run creates, so that nothing
# outlives the run, passed or failed, and what an interrupted run left is recognised and
# removed by the next one (never anything else).
#
#   suite_scope_begin   removes what earlier, interrupted runs left (their directory and
#                       their processes), then makes this run's directory
#                       ${TMPDIR:-/tmp}/gestured-suite.XXXXXX with an `owner` file (this
#                       shell's pid and start time), exports TMPDIR to it (every temporary
#                       file and directory of the run lands there: the tests', the
#                       toolchain's TemporaryDirectory.* ones, pytest's, vm/run.sh's work
#                       folders, sockets) and GESTURED_SUITE=<its name> (inherited by every
#                       process the run starts), and removes both at EXIT (trap).
#   suite_scope_end     (the EXIT trap) stops every process carrying this run's marker in
#                       its environment or its directory on its command line (SIGTERM, then
#                       SIGKILL after 5 s) and removes the directory.
#
# A run is recognised by its directory's name prefix and its owner file; a directory whose
# owner process still runs (another run, at the same time) is left alone.

suite_scope_parent=${TMPDIR:-/tmp}
# What it reads of /proc, in Python with its tests (`scripts/process_tree.py --self-test`).
suite_scope_process_tree=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/process_tree.py

# The start time of process $1 (field 22 of /proc/PID/stat), empty when it is gone or a
# zombie (killed, not yet reaped).
suite_scope_start_time() {
    "$suite_scope_process_tree" start-time "$1"
}

# The pids of processes, other than this shell and its ancestors, that carry the marker $1
# in their environment or the directory $2 on their command line.
suite_scope_processes() {
    "$suite_scope_process_tree" marked "$1" "$2"
}

# Stops the processes of the run whose marker is $1 and directory $2; prints how many.
suite_scope_stop() {
    local -
    set +e
    local pids pid listing=""
    pids=$(suite_scope_processes "$1" "$2")
    [[ -n "$pids" ]] || return 0
    for pid in $pids; do listing+=" $pid ($(cat "/proc/$pid/comm" 2>/dev/null))"; done
    echo "test.sh: stopping what the run $1 left running:$listing" >&2
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    for _ in $(seq 50); do
        pids=$(for pid in $pids; do [[ -d /proc/$pid ]] && echo "$pid"; done)
        [[ -n "$pids" ]] || return 0
        sleep 0.1
    done
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
}

suite_scope_begin() {
    local directory pid started
    for directory in "$suite_scope_parent"/gestured-suite.*; do
        [[ -d "$directory" && -f "$directory/owner" ]] || continue
        read -r pid started <"$directory/owner" || continue
        if [[ -n "$pid" && "$(suite_scope_start_time "$pid")" == "$started" ]]; then
            continue # that run is still going
        fi
        echo "test.sh: removing what an interrupted run left: $directory (its pid $pid is gone)" >&2
        suite_scope_stop "$(basename "$directory")" "$directory"
        rm -rf "$directory"
    done
    suite_scope_directory=$(mktemp -d "$suite_scope_parent/gestured-suite.XXXXXX")
    # Traversable by every user (not listable): tests run clients and daemons as nobody
    # (setpriv) in directories of their own below it, as they did directly in /tmp.
    chmod 0711 "$suite_scope_directory"
    echo "$$ $(suite_scope_start_time $$)" >"$suite_scope_directory/owner"
    suite_scope_marker=$(basename "$suite_scope_directory")
    export TMPDIR="$suite_scope_directory" GESTURED_SUITE="$suite_scope_marker"
    trap suite_scope_end EXIT
}

suite_scope_end() {
    local status=$?
    set +e
    suite_scope_stop "$suite_scope_marker" "$suite_scope_directory"
    rm -rf "$suite_scope_directory"
    exit "$status"
}
