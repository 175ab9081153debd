#!/usr/bin/env bash
# The host test suite (`swift test`: unit, corpus replay, property, socket and process
# tests) once more with AddressSanitizer, in its own build directory (.build/asan): every
# test and every `gestured`/`gesturectl` process the tests start run instrumented, so a
# heap or stack overflow, a use after free or a double free in the daemon's C interop
# (sd-event, sockets, libevdev, sd-device) fails the run. scripts/test.sh runs it after the plain
# suite (docs/reliability.md has the timings); run it alone with this script.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
# Leak checking stays off: the Swift runtime's metadata caches live for the process and
# would be reported; memory errors are what this run is for.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}"
scripts/build-sanitized.sh address .build/asan
swift test --skip-build --sanitize=address --scratch-path .build/asan
