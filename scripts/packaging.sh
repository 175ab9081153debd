# shellcheck shell=bash
# Shell functions shared by scripts/package-deb.sh, scripts/test-deb.sh, scripts/test-arm64.sh
# and scripts/run.sh (sourced, not run).

# unit_for_prefix PREFIX UNIT_FILE: prints UNIT_FILE with every /usr/local/bin/ replaced by
# PREFIX/bin/. The units in systemd/ are the source of truth and name the binaries under
# /usr/local/bin (what `run.sh --prefix /usr/local` installs); the Debian package installs
# them for the prefix /usr. PREFIX must be an absolute path of plain characters (no '|',
# '&', '\', whitespace), so the substitution cannot be misread by sed.
unit_for_prefix() {
    local prefix=${1%/}
    if [[ ! "$prefix" =~ ^/[A-Za-z0-9._+/-]*$ ]]; then
        echo "unit_for_prefix: the prefix must be an absolute path of letters, digits and ._+-/ (got '$1')" >&2
        return 2
    fi
    sed "s|/usr/local/bin/|$prefix/bin/|g" "$2"
}

# gestured_version: prints gesturedVersion from Sources/GestureCore/Version.swift (run from
# the repository root).
gestured_version() {
    sed -n 's/^public let gesturedVersion = "\(.*\)"$/\1/p' Sources/GestureCore/Version.swift
}

# swift_runtime_needs BINARY: prints the shared libraries and library paths of the Swift
# toolchain that BINARY needs (its NEEDED, RUNPATH and RPATH entries naming swift,
# Foundation, dispatch, BlocksRuntime or /opt/); nothing for a binary with the runtime
# linked in.
swift_runtime_needs() {
    objdump -p "$1" | awk '$1 == "NEEDED" || $1 == "RUNPATH" || $1 == "RPATH" { print $2 }' |
        grep -E 'swift|Foundation|dispatch|BlocksRuntime|/opt/' || true
}

# check DESCRIPTION COMMAND...: runs COMMAND and prints "ok - DESCRIPTION" or "FAIL - ...",
# counting in `passed` and `failed`; COMMAND's output is shown only when it fails.
passed=0
failed=0
check() {
    local description=$1 output
    shift
    if output=$("$@" 2>&1); then
        passed=$((passed + 1))
        echo "ok - $description"
    else
        failed=$((failed + 1))
        echo "FAIL - $description"
        # shellcheck disable=SC2001  # indents every line, which ${output//…} cannot anchor
        [[ -z "$output" ]] || sed 's/^/    /' <<<"$output"
    fi
}
# same FILE_A FILE_B: the files are identical (a diff when not).
same() { diff -u "$1" "$2"; }
# contains TEXT NEEDLE: TEXT contains NEEDLE (says what it got when not).
contains() { [[ "$1" == *"$2"* ]] || { echo "'$2' not in: $1"; return 1; }; }
