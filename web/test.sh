#!/usr/bin/env bash
# The live view and the bridge in a real browser (docs/web.md "Tests"): headless Chromium
# (Debian's chromium, installed by scripts/install-deps.sh --with-chromium) opens the live
# view served by gestured-web, which is fed by `gestured run --replay demo/demo.events` on a
# private socket; web/test_live_view.py drives it over the DevTools protocol and compares
# what the page received with what a Unix-socket subscriber received, checks that a
# foreign origin is refused, and saves a screenshot of the view mid-demo. Then
# web/test_metrics.py scrapes the bridge's /metrics and compares it with a subscriber.
#
#   web/test.sh [OUTPUT_DIR]      (default: .build/web-test-output; the screenshot is
#                                 OUTPUT_DIR/live-view.png)
#
# gestured and gestured-web come from $GESTURED_BIN_DIR, else this checkout's debug build
# (`swift build --build-tests` makes both). The driver's one dependency, websockets, is
# pinned in web/requirements-test.txt and installed from PyPI into .build/web-test
# (web/venv.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

./scripts/install-deps.sh --with-chromium
bin_dir="${GESTURED_BIN_DIR:-$(swift build --show-bin-path)}"
for binary in gestured gestured-web; do
    if [[ ! -x "$bin_dir/$binary" ]]; then
        echo "web/test.sh: no $binary in $bin_dir; build first: swift build --build-tests" >&2
        exit 1
    fi
done

python=$(web/venv.sh)

output="${1:-.build/web-test-output}"
# Whatever happens, the run ends by itself: every wait inside is bounded, and so is the whole.
timeout 300 "$python" web/test_live_view.py "$bin_dir/gestured" "$bin_dir/gestured-web" "$output"
# GET /metrics scraped and parsed with prometheus_client's parser (docs/metrics.md).
timeout 120 "$python" web/test_metrics.py "$bin_dir/gestured" "$bin_dir/gestured-web"
