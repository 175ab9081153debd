#!/usr/bin/env bash
# The host test suite (`swift test`: unit, corpus replay, property, socket and process
# tests) once more with ThreadSanitizer, in its own build directory (.build/tsan): every
# test and every `gestured`/`gesturectl` process the tests start run instrumented, so a
# data race between threads (a test's daemon thread and its client, the log and metrics
# backends, the C libraries' callbacks) fails the run. Races that are not the project's
# are suppressed in scripts/tsan-suppressions.txt, each with its reason. Run it alone with
# this script (docs/testing.md has its time).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan-suppressions.txt}"
scripts/build-sanitized.sh thread .build/tsan
swift test --skip-build --sanitize=thread --scratch-path .build/tsan
