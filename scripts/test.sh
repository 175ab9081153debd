#!/usr/bin/env bash
# The whole test suite: unit, replay-over-the-corpus and property tests with `swift test`;
# then what ships: the release build (once, scripts/build-release.sh), the Debian package
# made from it (scripts/package-deb.sh) and checked on this machine (scripts/test-deb.sh);
# then the end-to-end tier inside a VM (vm/test.sh; skipped with a message where qemu
# cannot run), which finds the package in $GESTURED_DEB. Installs the Debian packages it
# needs first.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh --with-vm --with-package --with-lintian
swift build --build-tests
swift test --skip-build

release_bin=$(scripts/build-release.sh)
GESTURED_DEB=$(scripts/package-deb.sh --bin-path "$release_bin" | tail -n 1)
export GESTURED_DEB
scripts/test-deb.sh "$GESTURED_DEB"

if [[ -x vm/test.sh ]]; then
    vm/test.sh
fi
