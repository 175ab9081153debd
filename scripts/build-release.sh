#!/usr/bin/env bash
# Builds what ships, once, for everything that needs it (scripts/package-deb.sh, the test
# suite, the VM tier): a release build with the Swift runtime linked statically (the target
# has no Swift runtime; README "Debian package") and full RELRO (-z relro -z now, as
# Debian's hardening flags link). Prints the directory of the binaries on standard output.
#
#   scripts/build-release.sh [PRODUCT...]     (default: gestured gesturectl gestured-web)
#
# Every release build of this package should go through here: `swift build -c release`
# with other flags relinks the same binaries in .build/release differently.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

flags=(-c release --static-swift-stdlib -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now)
products=("$@")
[[ ${#products[@]} -gt 0 ]] || products=(gestured gesturectl gestured-web)
for product in "${products[@]}"; do
    swift build "${flags[@]}" --product "$product" >&2
done
swift build "${flags[@]}" --show-bin-path
