#!/usr/bin/env bash
# The end-to-end tier: prepares the VM (vm/setup.sh), builds the guest-side test programs on
# the host, and runs them inside one VM boot (vm/run.sh). Called by scripts/test.sh.
#
#   vm/test.sh [--smoke-only] [--only TEXT,...]
#
# Inside the guest: vm/smoke/guest-smoke.sh (Swift runtime + libevdev + uinput, evemu
# devices from real descriptions, a real recording through the kernel), then, unless
# --smoke-only, the end-to-end driver `gestured-e2e` (built here on the host by
# scripts/build-release.sh, run in the guest from the repository root).
#
# Exit status: 0 when everything passed, or when qemu cannot run on this machine (prints
# "SKIP: ..."); non-zero on any failure (124: the guest never reported). The whole tier is
# kept under a 15-minute deadline, setup included (VM_TEST_DEADLINE seconds, default 900).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
started=$SECONDS
deadline=${VM_TEST_DEADLINE:-900}
smoke_only=0
driver_args=()
while (($#)); do
    case "$1" in
        --smoke-only) smoke_only=1 ;;
        --only) driver_args+=(--only "${2:?--only needs case names}"); shift ;;
        *) echo "vm/test: unknown option $1 (--smoke-only, --only TEXT,...)" >&2; exit 2 ;;
    esac
    shift
done

skip() { echo "SKIP: end-to-end VM tier: $*"; exit 0; }
step() { echo "vm/test [$((SECONDS - started))s]: $*"; }

step "setup"
set +e; vm/setup.sh; rc=$?; set -e
((rc == 77)) && skip "qemu is not available (see above)"
((rc == 0)) || { echo "vm/test: vm/setup.sh failed ($rc)" >&2; exit "$rc"; }

# shellcheck source=vm/corpus.sh
source vm/corpus.sh

step "building the guest programs on the host"
bin=vm/cache/smoke
mkdir -p "$bin"
if [[ ! "$bin/evread" -nt vm/smoke/evread.c ]]; then
    cc -O2 -Wall -o "$bin/evread" vm/smoke/evread.c
fi
if [[ ! "$bin/uinput-check" -nt vm/smoke/uinput-check.swift || ! "$bin/uinput-check" -nt vm/smoke/libevdev-bridge.h ]]; then
    read -ra evdev_cflags < <(pkg-config --cflags libevdev) || true
    swiftc -O -import-objc-header vm/smoke/libevdev-bridge.h "${evdev_cflags[@]}" \
        -levdev vm/smoke/uinput-check.swift -o "$bin/uinput-check"
fi
guest=(vm/smoke/guest-smoke.sh "$bin" "$corpus")
if ((smoke_only == 0)); then
    # The release build: what ships (the Debian package), and the only build whose speed
    # under emulation is representative. No case's verdict depends on that speed anyway.
    # scripts/build-release.sh: the flags the package's build uses (static Swift runtime),
    # so this build neither relinks the packaged binaries differently nor needs a runtime.
    driver=$(scripts/build-release.sh gestured gesturectl gestured-e2e)/gestured-e2e
    # shellcheck disable=SC2016  # the inner sh's positional parameters
    guest=(sh -c '"$1" "$2" "$3" && shift 3 && exec "$@"' guest "${guest[@]}" "$driver" --corpus "$corpus" "${driver_args[@]}")
fi

remaining=$((deadline - (SECONDS - started)))
((remaining > 60)) || { echo "vm/test: no time left for the VM (${remaining}s of ${deadline}s)" >&2; exit 1; }
step "running in the VM (timeout ${remaining}s): ${guest[*]}"
set +e; vm/run.sh --timeout "$remaining" --share "$corpus" -- "${guest[@]}"; rc=$?; set -e
step "done, status $rc"
((rc == 77)) && skip "qemu cannot run here (see above)"
exit "$rc"
