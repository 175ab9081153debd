#!/usr/bin/env bash
# Builds what `swift test` runs under a sanitizer, in its own build directory: the tests'
# bundle and the programs the tests start (gestured, gesturectl, gestured-web). Not
# gestured-e2e, the VM tiers' driver, which no test runs and whose release build the VM
# tiers make themselves (scripts/build-release.sh): about a tenth of the package's own code,
# left out of each sanitizer's build. Used by scripts/test-asan.sh and scripts/test-tsan.sh.
#
#   scripts/build-sanitized.sh address|thread SCRATCH-PATH
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -eq 2 && ($1 == address || $1 == thread) ]] || {
    echo "build-sanitized.sh: usage: scripts/build-sanitized.sh address|thread SCRATCH-PATH" >&2
    exit 2
}
for product in gesturedPackageTests gestured gesturectl gestured-web; do
    swift build --product "$product" --sanitize="$1" --scratch-path "$2"
done
