#!/usr/bin/env bash
# The whole test suite: unit, replay-over-the-corpus and property tests with `swift test`,
# the Python client against the debug daemon (clients/python/test.sh: pytest and mypy
# from PyPI into .build/python-client), then the end-to-end tier inside a VM (vm/test.sh;
# skipped with a message where qemu cannot run). Installs the Debian packages it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh --with-vm
swift build --build-tests
swift test --skip-build
GESTURED_BIN="$(swift build --show-bin-path)/gestured" clients/python/test.sh
if [[ -x vm/test.sh ]]; then
    vm/test.sh
fi
