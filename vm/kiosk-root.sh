#!/usr/bin/env bash
# Makes (once) and prints the Debian 13 "trixie" root the kiosk tier boots for Raspberry Pi
# OS's compositor: labwc 0.8 and cage 0.2 with wev, Chromium and what the driver needs, from
# Debian's archive (amd64, native: no emulation). vm/test-kiosk.sh boots it as the guest's
# root (vm/run.sh --root); the guest runs the host's release binaries on it (static Swift
# runtime, glibc 2.36 symbols at most).
#
#   vm/kiosk-root.sh            # prints the root's directory (the last line)
#
# Cached in vm/cache/roots/trixie-<hash>/, the hash taken over this script (so the package
# list): an edit makes a new root and removes the old ones. A `flock` on
# vm/cache/roots/.lock serialises concurrent runs. Needs root (debootstrap, chroot) when the
# root is not cached yet; scripts/install-deps.sh --with-kiosk installs debootstrap.
# GESTURED_DEBIAN_MIRROR overrides the archive (default http://deb.debian.org/debian).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
suite=trixie
mirror=${GESTURED_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# The compositors (labwc, cage; xwayland: cage and labwc start their X server on demand), the
# clients (wev, Chromium) and what the driver starts or reads in the guest: seatd, udev (its
# systemd-udevd and udevadm), setpriv (util-linux), stdbuf (coreutils), ip (iproute2),
# wtype and xdotool (the `keys` actions), xev (x11-utils), swayidle and wlopm (Raspberry Pi OS's
# blanking, as raspi-config writes it), grim (pictures of the output: the cursor), and the
# libraries gestured links (libevdev2, libudev1).
packages=(labwc cage xwayland wev chromium seatd udev util-linux coreutils iproute2 wtype xdotool x11-utils
    swayidle wlopm grim libevdev2 libudev1 procps)

say() { echo "vm/kiosk-root: $*" >&2; }
fail() { say "$*"; exit 1; }

hash=$(sha256sum "$here/kiosk-root.sh" | cut -c1-12)
roots=$here/cache/roots
root=$roots/$suite-$hash
mkdir -p "$roots"
exec 8>>"$roots/.lock"
flock 8
if [[ -f "$root/.complete" ]]; then
    echo "$root"
    exit 0
fi

[[ $(id -u) -eq 0 ]] || fail "making the $suite root needs root (debootstrap, chroot): run vm/test-kiosk.sh as root once"
command -v debootstrap >/dev/null || fail "debootstrap is missing: run scripts/install-deps.sh --with-kiosk"
started=$SECONDS
partial=$root.partial
# A run that was killed may leave its mounts behind.
for mount in proc sys dev/pts dev; do umount "$partial/$mount" 2>/dev/null || true; done
rm -rf "$partial"
say "debootstrap --variant=minbase $suite into $partial (log: $partial.log)"
debootstrap --variant=minbase --arch=amd64 "$suite" "$partial" "$mirror" >"$partial.log" 2>&1 ||
    { tail -n 20 "$partial.log" >&2; fail "debootstrap of $suite failed"; }
say "debootstrap done after $((SECONDS - started)) s; installing ${packages[*]}"
mount -t proc proc "$partial/proc"
trap 'umount "$partial/proc" 2>/dev/null || true' EXIT
# Nothing may start in the chroot (udev's and seatd's postinst honour policy-rc.d).
printf '#!/bin/sh\nexit 101\n' >"$partial/usr/sbin/policy-rc.d"
chmod 755 "$partial/usr/sbin/policy-rc.d"
chroot "$partial" env DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 apt-get install -y -q --no-install-recommends \
    "${packages[@]}" >>"$partial.log" 2>&1 || { tail -n 20 "$partial.log" >&2; fail "apt-get install in the $suite root failed"; }
downloaded=$(awk '/^Need to get/ { print $4, $5 }' "$partial.log" | tail -n 1)
chroot "$partial" apt-get clean
rm -f "$partial/usr/sbin/policy-rc.d"
umount "$partial/proc"
trap - EXIT
# What the root holds, for whoever wonders which versions the tier ran.
# shellcheck disable=SC2016  # a dpkg-query format, not a shell expansion
chroot "$partial" dpkg-query -W -f='${Package} ${Version}\n' >"$partial/.packages"
touch "$partial/.complete"
for old in "$roots/$suite"-*; do
    [[ "$old" == "$partial" || "$old" == "$root" || "$old" == "$root.partial.log" ]] && continue
    rm -rf "$old"
done
mv "$partial" "$root"
mv "$partial.log" "$root.log"
say "made $root in $((SECONDS - started)) s (downloaded ${downloaded:-?}; $(du -sh "$root" | cut -f1) on disk)"
echo "$root"
