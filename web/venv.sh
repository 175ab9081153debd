#!/usr/bin/env bash
# Makes (once, and again when web/requirements-test.txt changes) the virtual environment
# .build/web-test with the pinned websockets from PyPI, for web/test.sh and the bridge's
# benchmark (scripts/benchmark-daemon.sh), and prints its python.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.build/web-test"
if [[ ! -x "$venv/bin/python" ]] || ! cmp -s "$root/web/requirements-test.txt" "$venv/requirements-test.txt"; then
    echo "web: creating $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$root/web/requirements-test.txt" >&2
    cp "$root/web/requirements-test.txt" "$venv/requirements-test.txt"
fi
echo "$venv/bin/python"
