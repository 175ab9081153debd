#!/usr/bin/env bash
# The systemd tier: the Debian package under Debian's real systemd (PID 1) in the test VM.
# Called by scripts/test.sh after vm/test.sh.
#
#   vm/test-systemd.sh [--deb FILE | --bin-path DIR]
#
# Builds the package (scripts/package-deb.sh; --bin-path reuses a release build, --deb
# takes a built package), boots the VM with `vm/run.sh --systemd`, installs the package
# with `dpkg -i` in the new root before systemd starts (as a kiosk image is built: the
# units are enabled, not yet started), and runs vm/systemd/checks.py (Python) as a oneshot unit of
# that boot: started by boot and by socket activation, the dynamic user and the sandbox
# seen in /proc, who may connect, a touchscreen hot-plugged through udev, clients before
# activation / while running / after a restart, reload with a broken configuration, a
# pass-through clone that outlives a crash, a kill of the unit and the watchdog, stop, the journal's messages, dpkg -r, dpkg -P and dpkg -i on the live system (and
# /dev/uinput's group and mode after each).
#
# Exit status: 0 when every check passed, or when qemu cannot run on this machine (prints
# "SKIP: ..."); non-zero otherwise (124: the guest never reported; 125: dpkg -i before
# boot failed). Deadline VM_SYSTEMD_DEADLINE seconds (default 900), package build included.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
started=$SECONDS
deadline=${VM_SYSTEMD_DEADLINE:-900}
deb=""
bin_args=()
while (($#)); do
    case "$1" in
        --deb) deb=$(cd "$(dirname "${2:?--deb needs a file}")" && pwd)/$(basename "$2"); shift ;;
        --bin-path) bin_args=(--bin-path "${2:?--bin-path needs a directory}"); shift ;;
        *) echo "vm/test-systemd: unknown option $1 (--deb FILE, --bin-path DIR)" >&2; exit 2 ;;
    esac
    shift
done

skip() { echo "SKIP: systemd VM tier: $*"; exit 0; }
step() { echo "vm/test-systemd [$((SECONDS - started))s]: $*"; }

step "the harness's own tests"
vm/systemd/checks.py --self-test

step "setup"
set +e; vm/setup.sh; rc=$?; set -e
((rc == 77)) && skip "qemu is not available (see above)"
((rc == 0)) || { echo "vm/test-systemd: vm/setup.sh failed ($rc)" >&2; exit "$rc"; }

if [[ -z "$deb" ]]; then
    step "building the package"
    deb=$(scripts/package-deb.sh "${bin_args[@]}" | tail -n 1)
fi
[[ -f "$deb" ]] || { echo "vm/test-systemd: no package at '$deb'" >&2; exit 1; }
case "$deb" in
    "$root"/*) ;;
    *) echo "vm/test-systemd: $deb must be inside $root (the guest sees only the work share)" >&2; exit 1 ;;
esac

# Before boot, in a chroot of the guest's root: vm/run.sh's guest init has already purged a
# gestured package or source installation of this host's (vm/known-state.sh: a kiosk image
# starts from a clean Debian, and `dpkg -i` of the same version over an installed package
# would keep its units as the host's administrator left them); this makes it a plain Debian
# system rather than this build host: no /usr/sbin/policy-rc.d (container images have one
# that forbids every service start and stop: a kiosk does not, and with it dpkg could not
# start or stop anything); man-db's index not rebuilt at each install (it costs a minute
# under emulation, and is no part of the package). Then the package, as an image build
# installs it.
before="rm -f /usr/sbin/policy-rc.d /var/lib/man-db/auto-update
dpkg -i '$deb'"

remaining=$((deadline - (SECONDS - started)))
((remaining > 120)) || { echo "vm/test-systemd: no time left for the VM (${remaining}s of ${deadline}s)" >&2; exit 1; }
step "booting systemd in the VM with $(basename "$deb") installed (timeout ${remaining}s)"
set +e
vm/run.sh --systemd --timeout "$remaining" --before-boot "$before" -- vm/systemd/checks.py "$deb"
rc=$?
set -e
step "done, status $rc"
((rc == 77)) && skip "qemu cannot run here (see above)"
exit "$rc"
