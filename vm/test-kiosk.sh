#!/usr/bin/env bash
# The kiosk tier: gestured with pass-through between a uinput touchscreen and a
# real Wayland compositor, cage and then sway, each with wev (a real Wayland client that
# prints every wl_touch event) as its client. Called by scripts/test.sh after vm/test.sh.
#
#   vm/test-kiosk.sh [--compositors cage,sway] [--only TEXT,...]
#
# Builds the release gestured and the driver (gestured-e2e, `--kiosk`) on the host and runs
# the driver in one VM boot: systemd-udevd and seatd once, then per compositor a headless
# compositor (pixman) running wev as nobody, the cases (vm/README.md "The kiosk tier"), and
# the compositor's stop. Output: `PASS name` / `FAIL name: reason`, `BENCH …`, then
# `N passed, N failed`.
#
# Exit status: 0 when everything passed, or when qemu cannot run on this machine (prints
# "SKIP: ..."); non-zero on any failure (124: the guest never reported). Deadline
# VM_KIOSK_DEADLINE seconds (default 900), builds included.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
started=$SECONDS
deadline=${VM_KIOSK_DEADLINE:-900}
compositors=cage,sway
driver_args=()
while (($#)); do
    case "$1" in
        --compositors) compositors=${2:?--compositors needs cage,sway}; shift ;;
        --only) driver_args+=(--only "${2:?--only needs case names}"); shift ;;
        *) echo "vm/test-kiosk: unknown option $1 (--compositors cage,sway, --only TEXT,...)" >&2; exit 2 ;;
    esac
    shift
done

skip() { echo "SKIP: kiosk VM tier: $*"; exit 0; }
step() { echo "vm/test-kiosk [$((SECONDS - started))s]: $*"; }

step "setup"
set +e; vm/setup.sh; rc=$?; set -e
((rc == 77)) && skip "qemu is not available (see above)"
((rc == 0)) || { echo "vm/test-kiosk: vm/setup.sh failed ($rc)" >&2; exit "$rc"; }

# The guest runs the host's programs (its root is the host's /): they must be installed here.
missing=()
for program in cage sway wev seatd stdbuf setpriv udevadm; do
    command -v "$program" >/dev/null || missing+=("$program")
done
((${#missing[@]} == 0)) || { echo "vm/test-kiosk: missing ${missing[*]}: run scripts/install-deps.sh --with-kiosk" >&2; exit 1; }

# shellcheck source=vm/corpus.sh
source vm/corpus.sh

step "building the release gestured and the driver"
driver=$(scripts/build-release.sh gestured gesturectl gestured-e2e)/gestured-e2e

remaining=$((deadline - (SECONDS - started)))
((remaining > 60)) || { echo "vm/test-kiosk: no time left for the VM (${remaining}s of ${deadline}s)" >&2; exit 1; }
step "running in the VM (timeout ${remaining}s): compositors $compositors"
# A compositor, wev and gestured beside the driver: more than the e2e tier's 512 MiB.
set +e
VM_MEMORY=${VM_MEMORY:-1024} vm/run.sh --timeout "$remaining" --share "$corpus" -- \
    "$driver" --corpus "$corpus" --work /run/gestured-kiosk --kiosk "$compositors" "${driver_args[@]}"
rc=$?
set -e
step "done, status $rc"
((rc == 77)) && skip "qemu cannot run here (see above)"
exit "$rc"
