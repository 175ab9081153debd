#!/usr/bin/env bash
# The whole test suite: unit, replay-over-the-corpus and property tests with `swift test`;
# the same once more under AddressSanitizer (scripts/test-asan.sh: about 1.5 minutes more,
# docs/reliability.md); the Python client against the debug daemon (clients/python/test.sh:
# pytest and mypy from PyPI into .build/python-client); the live view and the WebSocket bridge
# in headless Chromium (web/test.sh: Debian's chromium, websockets from PyPI into
# .build/web-test; the screenshot lands in .build/web-test-output); then what ships: the release build
# (once, scripts/build-release.sh), the Debian package made from it (scripts/package-deb.sh)
# and checked on this machine (scripts/test-deb.sh);
# then the VM tiers (each skipped with a message where qemu cannot run): the end-to-end
# tier (vm/test.sh), the kiosk tier (vm/test-kiosk.sh: gestured between a touchscreen and
# cage and sway with a Wayland client) and that package under a real systemd
# (vm/test-systemd.sh).
# Installs the Debian packages it needs first. Before anything is built, the sources must
# be formatted as .swift-format says (the toolchain's `swift format`; any finding fails), and
# no shipped code may call the system around SystemCalls (scripts/check-system-calls.sh), and
# no text may cite the issue tracker by number (scripts/check-issue-numbers.sh), and every
# relative link of the documentation must resolve (scripts/check-doc-links.py).
# Nothing the run creates outlives it (scripts/suite-scope.sh): its temporary files and
# directories, sockets and VM work folders all live in one directory under /tmp, removed
# at exit with every process the run started, passed or failed; what an interrupted run
# left there is removed by the next one.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/suite-scope.sh
suite_scope_begin

./scripts/install-deps.sh --with-vm --with-kiosk --with-package --with-lintian --with-python --with-chromium
# Format: `swift format format -i -r Sources Tests` fixes what this finds.
swift format lint --strict --recursive Sources Tests
# The evdev name table is what the kernel header gives (scripts/generate-event-codes.py).
scripts/generate-event-codes.py --check
# Every system call through Sources/SystemCalls (docs/architecture.md); its own fixtures first.
scripts/check-system-calls.sh --self-test
scripts/check-system-calls.sh
# No tracker issue numbers in the tree (the tracker is not in it); its own fixtures first.
scripts/check-issue-numbers.sh --self-test
scripts/check-issue-numbers.sh
# Every relative link and #anchor of the documentation resolves; its own fixtures first.
scripts/check-doc-links.py --self-test
scripts/check-doc-links.py
# No merge left half done: conflict markers at the start of a line anywhere in the tree.
if git grep -nE '^(<<<<<<<|>>>>>>>)( |$)' -- .; then
    echo "scripts/test.sh: merge conflict markers above" >&2
    exit 1
fi

# Each tier's wall-clock time, printed as it ends and again at the end (docs/testing.md).
tier_times=()
tier() {
    local name=$1 began=$SECONDS
    shift
    "$@"
    tier_times+=("$name $((SECONDS - began)) s")
    echo "suite: $name took $((SECONDS - began)) s"
}

tier "swift build" swift build --build-tests
tier "swift test" swift test --skip-build
tier "ASan" ./scripts/test-asan.sh
tier "Python client" env GESTURED_BIN="$(swift build --show-bin-path)/gestured" clients/python/test.sh
tier "browser" env GESTURED_BIN_DIR="$(swift build --show-bin-path)" web/test.sh

began=$SECONDS
release_bin=$(scripts/build-release.sh)
deb=$(scripts/package-deb.sh --bin-path "$release_bin" | tail -n 1)
tier_times+=("release build and package $((SECONDS - began)) s")
tier "package checks" scripts/test-deb.sh "$deb"

tier "e2e VM" vm/test.sh
tier "kiosk VM" vm/test-kiosk.sh
tier "systemd VM" vm/test-systemd.sh --deb "$deb"
echo "suite: tier times: $(printf '%s; ' "${tier_times[@]}")total $SECONDS s"
