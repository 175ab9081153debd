#!/usr/bin/env bash
# Installs the Debian packages gestured builds and tests against. Idempotent: does
# nothing when everything is present. Needs root (or sudo) only when something is missing.
set -euo pipefail

packages=(libevdev-dev libsystemd-dev pkg-config evemu-tools socat)
if [[ "${1:-}" == "--with-vm" ]]; then
    # udev: the VM tier starts its systemd-udevd in the guest (hot-plug through sd-device);
    # installing it never starts it (not in containers, nor where policy-rc.d forbids).
    # python3-venv: the Python client's tests (clients/python/test.sh) run in a venv.
    packages+=(qemu-system-x86 busybox-static cpio python3 python3-venv udev)
fi

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
