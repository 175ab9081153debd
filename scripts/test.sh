#!/usr/bin/env bash
# The whole test suite: unit, replay-over-the-corpus and property tests with `swift test`,
# the same once more under AddressSanitizer (scripts/test-asan.sh: about 1.5 minutes more,
# docs/reliability.md), then the end-to-end tier inside a VM (vm/test.sh; skipped with a
# message where qemu cannot run). Installs the Debian packages it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh --with-vm
swift build --build-tests
swift test --skip-build
./scripts/test-asan.sh
if [[ -x vm/test.sh ]]; then
    vm/test.sh
fi
