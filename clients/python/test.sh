#!/usr/bin/env bash
# Tests the Python client (clients/python) against the real daemon:
#
#  1. a virtual environment in .build/python-client (ignored by git) with the pinned
#     pytest, mypy and setuptools from PyPI, what they pull in pinned by
#     constraints-test.txt (installed once; needs python3-venv);
#  2. the package installed into it from source, as a user would (`pip install`), so
#     the tests use the installed copy (py.typed included);
#  3. `mypy --strict` on the package and its tests (checked as Python 3.9, the oldest
#     supported version);
#  4. pytest, with the daemon from $GESTURED_BIN, else this checkout's debug build
#     (`swift build --build-tests` or `swift build --product gestured` makes it).
#
# With python3.9 on PATH, step 4 also runs under it (the oldest supported version).
# Extra arguments go to pytest (e.g. -k reconnect).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"

say() { printf '\033[1mclients/python:\033[0m %s\n' "$*"; }

if [[ -z "${GESTURED_BIN:-}" ]]; then
    GESTURED_BIN="$(cd "$root" && swift build --show-bin-path)/gestured"
fi
if [[ ! -x "$GESTURED_BIN" ]]; then
    echo "clients/python/test.sh: no gestured at $GESTURED_BIN; build it first: swift build --product gestured" >&2
    exit 1
fi
export GESTURED_BIN

# Makes (once) a virtual environment for `python` in `dir` with the test tools of
# requirements-test.txt except those named in `skip` (a grep pattern), and installs the
# package into it afresh.
prepare() {
    local python="$1" dir="$2" skip="${3:-^$}"
    # Made again when the pins change (the copies inside say what it was made with).
    if [[ ! -x "$dir/bin/python" ]] || ! cmp -s "$here/requirements-test.txt" "$dir/requirements-test.txt" \
        || ! cmp -s "$here/constraints-test.txt" "$dir/constraints-test.txt"; then
        say "creating $dir ($("$python" --version))"
        rm -rf "$dir"
        if ! "$python" -m venv "$dir"; then
            echo "clients/python/test.sh: '$python -m venv' failed; on Debian: apt-get install python3-venv" >&2
            exit 1
        fi
        grep -v -e '^#' -e "$skip" "$here/requirements-test.txt" \
            | xargs "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -c "$here/constraints-test.txt"
        cp "$here/requirements-test.txt" "$here/constraints-test.txt" "$dir/"
    fi
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps \
        --force-reinstall "$here"
    rm -rf "$here/build" "$here"/src/*.egg-info
}

venv="$root/.build/python-client"
prepare python3 "$venv"
say "mypy --strict (as Python 3.9)"
"$venv/bin/python" -m mypy --strict --python-version 3.9 src tests
say "pytest with $("$venv/bin/python" --version) and $GESTURED_BIN"
"$venv/bin/python" -m pytest -q "$@"

if python3.9 -c '' 2>/dev/null && [[ "$(python3 -c 'import sys; print(sys.version_info[:2])')" != "(3, 9)" ]]; then
    prepare python3.9 "$root/.build/python-client-3.9" '^mypy'  # mypy runs on 3.10+ only
    say "pytest with $(python3.9 --version)"
    "$root/.build/python-client-3.9/bin/python" -m pytest -q -p no:cacheprovider "$@"
fi
