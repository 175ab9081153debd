#!/usr/bin/env bash
# The arm64-kernel tier: the arm64 package on Debian's arm64 kernel, under
# qemu-system-aarch64 (TCG, `-M virt -cpu cortex-a53`: the core of a Raspberry Pi 3 and
# Zero 2, the oldest the package is for), with touchscreens described like Raspberry Pi
# panels (vm/arm64/panels: the official 7" display through edt-ft5x06 and through the
# firmware's raspberrypi-ts, and a Goodix GT911).
#
#   vm/test-arm64-kernel.sh [--deb DEB] [--only TEXT,...] [--fetch-only]
#
#   --deb DEB        the arm64 .deb (default: made with scripts/package-deb.sh --arch arm64)
#   --only TEXT,...  only the driver's cases whose names contain TEXT (the setup cases run)
#   --fetch-only     make the package, the driver and the kernel ready (built, downloaded,
#                    cached), boot nothing (scripts/test.sh does it beside other tiers)
#
# The guest's root is a small initramfs, no Debian root: arm64 busybox-static (its /init is
# vm/arm64/init.sh), the .deb's files unpacked, the shared libraries its binaries and the e2e
# driver load, taken from the Debian 12 arm64 sysroot of the cross build
# (scripts/arm64-toolchain.sh), the kernel's evdev and uinput modules, and `gestured-e2e`
# cross-compiled for arm64 (scripts/build-release.sh --arch arm64). In the guest the driver's
# panel cases (`gestured-e2e --panels`) run against the package's /usr/bin/gestured: each
# panel made through uinput must come out of the kernel as described; one daemon with the
# defaults must deliver tap, double tap, long press, drag, swipe, two-finger tap and pinch
# from every panel to a socket subscriber; each panel passed through must be grabbed and
# cloned with the same capabilities, re-emitted on the clone frame for frame, keep its
# reserved edge off the clone, and leave no contact down on reload or SIGTERM.
#
# Downloads (once; cached in /var/cache/gestured-build/arm64-vm, apt checks them against
# Debian 12's signed arm64 package lists): the kernel package linux-image-arm64 depends on,
# and busybox-static. Needs root (the cross toolchain's build root) and qemu-system-arm
# (scripts/install-deps.sh --with-arm64-vm). Prints the driver's PASS/FAIL lines and its
# "N passed, N failed"; exit status: 0 all passed, or "SKIP: ..." when qemu-system-aarch64
# cannot run here; 1 on a failure; 124 when the guest never reported (its console is
# streamed above as it runs).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
absolute() { [[ "$1" == /* ]] && echo "$1" || echo "$PWD/$1"; }
deb=""
only=()
fetch_only=""
while (($#)); do
    case "$1" in
        --deb) deb=$(absolute "${2:?--deb needs a file}"); shift ;;
        --only) only=(--only "${2:?--only needs case names}"); shift ;;
        --fetch-only) fetch_only=1 ;;
        -h | --help) sed -n '2,33p' "$0"; exit 0 ;;
        *) echo "test-arm64-kernel: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
cd "$root"
source scripts/arm64-toolchain.sh
started=$SECONDS
step() { echo "test-arm64-kernel [$((SECONDS - started))s]: $*"; }
fail() { echo "test-arm64-kernel: $*" >&2; exit 1; }
timeout_s=${VM_ARM64_TIMEOUT:-900}

./scripts/install-deps.sh --with-arm64 --with-arm64-vm
qemu=$(command -v qemu-system-aarch64) || fail "qemu-system-aarch64 is missing (scripts/install-deps.sh --with-arm64-vm)"
if ! probe=$(echo quit | timeout 30 "$qemu" -machine none -nodefaults -display none -monitor stdio 2>&1 >/dev/null); then
    echo "SKIP: arm64-kernel tier: qemu-system-aarch64 does not start here: ${probe:-timed out}"
    exit 0
fi

step "the arm64 package and driver"
[[ -n "$deb" ]] || deb=$(scripts/package-deb.sh --arch arm64 | tail -n 1)
[[ -f "$deb" ]] || fail "no package at $deb"
driver=$(scripts/build-release.sh --arch arm64 gestured-e2e)/gestured-e2e
arm64_prepare

# The kernel and busybox, from Debian 12's arm64 archive.
cache="$arm64_cache/arm64-vm"
debs="$arm64_cache/debs/bookworm-arm64"
mkdir -p "$cache"
arm64_download bookworm arm64 "$debs" linux-image-arm64 busybox-static
# shellcheck disable=SC2012  # our own file names (no newlines); ls also drops a pattern that matched nothing
newest() { ls "$debs/$1"_*_arm64.deb | sort -V | tail -n 1; }
kernel_package=$(dpkg-deb -f "$(newest linux-image-arm64)" Depends | grep -o 'linux-image-[0-9][^ ,]*-arm64' | head -n 1)
[[ -n "$kernel_package" ]] || fail "linux-image-arm64 names no kernel package"
kernel="$cache/$kernel_package"
if [[ ! -f "$kernel/.complete" ]]; then
    arm64_download bookworm arm64 "$debs" "$kernel_package"
    step "unpacking $kernel_package: its image, evdev and uinput"
    rm -rf "$kernel" "$kernel.partial"
    mkdir -p "$kernel.partial/unpacked"
    dpkg-deb --fsys-tarfile "$(newest "$kernel_package")" |
        tar -x -C "$kernel.partial/unpacked" --wildcards './boot/vmlinuz-*' \
            './lib/modules/*/kernel/drivers/input/evdev.ko*' './lib/modules/*/kernel/drivers/input/misc/uinput.ko*'
    mv "$kernel.partial"/unpacked/boot/vmlinuz-* "$kernel.partial/vmlinuz"
    for module in evdev uinput; do
        file=$(find "$kernel.partial/unpacked/lib/modules" -name "$module.ko*" | head -n 1)
        case "$file" in
            *.ko) cp "$file" "$kernel.partial/$module.ko" ;;
            *.ko.xz) xz -dc "$file" >"$kernel.partial/$module.ko" ;;
            *.ko.zst) zstd -qdc "$file" >"$kernel.partial/$module.ko" ;;
            *) fail "no $module module in $kernel_package" ;;
        esac
    done
    rm -rf "$kernel.partial/unpacked"
    touch "$kernel.partial/.complete"
    mv "$kernel.partial" "$kernel"
fi

if [[ -n $fetch_only ]]; then
    step "the package, the driver and $kernel_package are ready"
    exit 0
fi

step "the guest's root: busybox, the package, its libraries, the driver"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
initramfs="$work/root"
mkdir -p "$initramfs"/{bin,dev,proc,sys,lib/modules,panels,opt/e2e}
dpkg-deb -x "$(newest busybox-static)" "$work/busybox"
cp "$work/busybox/bin/busybox" "$initramfs/bin/busybox"
ln -s busybox "$initramfs/bin/sh"
install -m 0755 vm/arm64/init.sh "$initramfs/init"
cp "$kernel/evdev.ko" "$kernel/uinput.ko" "$initramfs/lib/modules/"
dpkg-deb -x "$deb" "$initramfs"
aarch64-linux-gnu-strip --strip-unneeded -o "$initramfs/opt/e2e/gestured-e2e" "$driver"
cp vm/arm64/panels/*.desc "$initramfs/panels/"
# The libraries the binaries need, and theirs, from the sysroot (as Debian 12 installs them).
libraries="$initramfs/usr/lib/aarch64-linux-gnu"
mkdir -p "$libraries"
ln -s ../usr/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1 "$initramfs/lib/ld-linux-aarch64.so.1"
needed=(ld-linux-aarch64.so.1)
pending=("$initramfs"/usr/bin/* "$initramfs/opt/e2e/gestured-e2e")
while ((${#pending[@]})); do
    elf=${pending[0]}
    pending=("${pending[@]:1}")
    while read -r library; do
        [[ " ${needed[*]} " == *" $library "* ]] && continue
        needed+=("$library")
        found=$(find "$arm64_sysroot/usr/lib/aarch64-linux-gnu" -maxdepth 1 -name "$library" | head -n 1)
        [[ -n "$found" ]] || fail "$library (needed by ${elf#"$initramfs"}) is not in the sysroot"
        pending+=("$found")
    done < <(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done
for library in "${needed[@]}"; do
    cp -L "$arm64_sysroot/usr/lib/aarch64-linux-gnu/$library" "$libraries/"
done
panels=$(cd "$initramfs" && printf '/%s,' panels/*.desc)
{
    # Pass-through frames 20 ms apart (a 50 Hz panel), 100 in the latency runs: the driver and
    # the daemon share one emulated core.
    printf 'exec /opt/e2e/gestured-e2e --gestured /usr/bin/gestured --work /run/gestured-e2e --interval 20 --pass-through-frames 100 --panels %s' "${panels%,}"
    ((${#only[@]} == 0)) || printf ' %q' "${only[@]}"
    echo
} >"$initramfs/cmd.sh"
(cd "$initramfs" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) >"$work/initramfs.cpio"
step "initramfs: $(du -m "$work/initramfs.cpio" | cut -f1) MB, ${#needed[@]} libraries (${needed[*]})"

step "booting $kernel_package (qemu-system-aarch64 -M virt -cpu cortex-a53, TCG; timeout ${timeout_s}s)"
console="$work/console.log"
: >"$console"
timeout -k 5 "$timeout_s" "$qemu" -machine virt -cpu cortex-a53 -accel tcg -m 1024 -smp 1 \
    -nodefaults -display none -monitor none -no-reboot -serial "file:$console" \
    -kernel "$kernel/vmlinuz" -initrd "$work/initramfs.cpio" \
    -append "console=ttyAMA0 rdinit=/init quiet loglevel=1 panic=-1" \
    </dev/null >"$work/qemu.out" 2>&1 &
qemu_pid=$!
tail -n +1 -f --pid="$qemu_pid" "$console" | sed -u 's/\r$//' &
tail_pid=$!
qemu_status=0
wait "$qemu_pid" || qemu_status=$?
wait "$tail_pid" || true
status=$(sed -n 's/^vm-arm64: status \([0-9]*\).*/\1/p' "$console" | tail -n 1)
step "done (qemu exited with $qemu_status)"
if [[ -z "$status" ]]; then
    echo "test-arm64-kernel: the guest never reported a status (timeout ${timeout_s}s, panic or init failure)" >&2
    sed 's/^/  qemu: /' "$work/qemu.out" >&2
    exit 124
fi
exit "$status"
