#!/usr/bin/env bash
# Installs the Debian packages gestured builds and tests against. Idempotent: does
# nothing when everything is present. Needs root (or sudo) only when something is missing.
#
#   scripts/install-deps.sh [--with-vm] [--with-kiosk] [--with-package] [--with-lintian]
#                           [--with-python] [--with-chromium] [--with-arm64]
#                           [--with-arm64-vm]
#
#   --with-vm       the VM tier (qemu and what vm/setup.sh assembles the guest from)
#   --with-kiosk    the kiosk VM tier (vm/test-kiosk.sh): the compositors, their clients (wev,
#                   Chromium) and seat, run inside the guest from the host's root
#   --with-package  building the .deb (scripts/package-deb.sh: dpkg-shlibdeps, objdump)
#   --with-lintian  checking the .deb (scripts/test-deb.sh)
#   --with-python   the Python client's tests (clients/python/test.sh works in a venv)
#   --with-chromium the live view's browser test (web/test.sh: headless Chromium, a venv)
#   --with-arm64    the arm64 package and its checks (scripts/arm64-toolchain.sh)
#   --with-arm64-vm the arm64-kernel tier (vm/test-arm64-kernel.sh: qemu-system-aarch64, cpio)
set -euo pipefail

# The suite runs shellcheck over every shell script before the build (scripts/test.sh).
# wtype: how `gesturectl actions` types its keys (a Recommends of the package); the
# actions tests check its table of keysyms against wtype itself.
packages=(libevdev-dev libsystemd-dev pkg-config evemu-tools socat wtype shellcheck)
for option in "$@"; do
    case "$option" in
        # udev: the VM tier starts its systemd-udevd in the guest (hot-plug through sd-device);
        # installing it never starts it (not in containers, nor where policy-rc.d forbids).
        --with-vm) packages+=(qemu-system-x86 busybox-static cpio python3 udev) ;;
        # cage exits without xwayland ("Cannot find Xwayland binary"); wev is the Wayland
        # client that prints every wl_touch event; libinput-tools for `libinput list-devices`
        # when a kiosk case needs looking into; chromium is the kiosk browser the guide's recipes
        # run, iproute2 brings the guest's loopback up for the page's site (gestured-web);
        # swayidle blanks the screen in the wake cases; wtype and xdotool type the `keys`
        # actions (Wayland, X11), wev and xev (x11-utils) read them; grim takes pictures of the
        # output (where the compositor draws the cursor). debootstrap makes the Debian 13 root of labwc and cage 0.2 (vm/kiosk-root.sh).
        --with-kiosk) packages+=(qemu-system-x86 busybox-static cpio python3 udev cage sway wev seatd xwayland libinput-tools chromium iproute2 swayidle wtype xdotool x11-utils grim debootstrap) ;;
        --with-package) packages+=(dpkg-dev binutils) ;;
        # The arm64 package (scripts/arm64-toolchain.sh): the build root and the sysroot, an
        # aarch64 strip, running arm64 programs (man pages, the corpus check) under qemu-user, and
        # xz to unpack the arm64 swiftlang on every core.
        --with-arm64) packages+=(debootstrap binutils-aarch64-linux-gnu qemu-user-static dpkg-dev binutils xz-utils) ;;
        --with-arm64-vm) packages+=(qemu-system-arm cpio) ;;
        --with-lintian) packages+=(lintian) ;;
        --with-python) packages+=(python3 python3-venv) ;;
        --with-chromium) packages+=(chromium python3 python3-venv) ;;
        *) echo "install-deps.sh: unknown option $option" >&2; exit 2 ;;
    esac
done

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
echo "gestured: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
