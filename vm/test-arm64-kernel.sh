#!/usr/bin/env bash
# The arm64-kernel tier: the arm64 package on Debian's arm64 kernels, under
# qemu-system-aarch64 (TCG, `-M virt`), with touchscreens described like Raspberry Pi
# panels (vm/arm64/panels: the official 7" display through edt-ft5x06 and through the
# firmware's raspberrypi-ts, and a Goodix GT911). Two kernels, the same cases on each:
#   4k   Debian 12's linux-image-arm64 (4 KiB pages) on `-cpu cortex-a53`: the core of a
#        Raspberry Pi 3 and Zero 2, the oldest the package is for;
#   16k  Debian sid's linux-image-arm64-16k (16 KiB pages, as the Raspberry Pi 5's default
#        kernel) on `-cpu cortex-a76`, the Pi 5's core (QEMU's cortex-a53 has no 16 KiB
#        translation granule: that kernel prints nothing there).
#
#   vm/test-arm64-kernel.sh [--deb DEB] [--only TEXT,...] [--kernels 4k,16k] [--fetch-only]
#
#   --deb DEB        the arm64 .deb (default: made with scripts/package-deb.sh --arch arm64)
#   --only TEXT,...  only the driver's cases whose names contain TEXT (the setup cases run)
#   --kernels ...    which kernels to boot (default: 4k,16k)
#   --fetch-only     make the package, the driver and the kernels ready (built, downloaded,
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
# Debian's signed arm64 package lists): the kernel packages linux-image-arm64 (Debian 12)
# and linux-image-arm64-16k (sid) depend on, and busybox-static (Debian 12). The guest says
# its page size; a kernel that boots with another than its own fails the tier. Needs root (the cross toolchain's build root) and qemu-system-arm
# (scripts/install-deps.sh --with-arm64-vm). Prints the driver's PASS/FAIL lines and its
# "N passed, N failed"; exit status: 0 all passed, or "SKIP: ..." when qemu-system-aarch64
# cannot run here; 1 on a failure; 124 when the guest never reported (its console is
# streamed above as it runs).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
absolute() { [[ "$1" == /* ]] && echo "$1" || echo "$PWD/$1"; }
deb=""
only=()
kernels=4k,16k
fetch_only=""
while (($#)); do
    case "$1" in
        --deb) deb=$(absolute "${2:?--deb needs a file}"); shift ;;
        --only) only=(--only "${2:?--only needs case names}"); shift ;;
        --kernels) kernels=${2:?--kernels needs 4k and/or 16k}; shift ;;
        --fetch-only) fetch_only=1 ;;
        -h | --help) sed -n '2,41p' "$0"; exit 0 ;;
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

# busybox from Debian 12's arm64 archive; each kernel from its suite's.
cache="$arm64_cache/arm64-vm"
debs="$arm64_cache/debs/bookworm-arm64"
mkdir -p "$cache"
arm64_download bookworm arm64 "$debs" busybox-static
# shellcheck disable=SC2012  # our own file names (no newlines); ls also drops a pattern that matched nothing
newest() { ls "$1/$2"_*_arm64.deb | sort -V | tail -n 1; }

# fetch_kernel SUITE METAPACKAGE: downloads the kernel METAPACKAGE depends on (with, in sid,
# the linux-binary and linux-modules packages its image depends on) and unpacks its image
# and its evdev and uinput modules into $cache/PACKAGE (once); sets kernel and
# kernel_package.
fetch_kernel() {
    local suite=$1 meta=$2 dir="$arm64_cache/debs/$1-arm64"
    arm64_download "$suite" arm64 "$dir" "$meta"
    kernel_package=$(dpkg-deb -f "$(newest "$dir" "$meta")" Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//' |
        grep -E '^linux-image-[0-9]' | head -n 1)
    [[ -n "$kernel_package" ]] || fail "$meta names no kernel package"
    kernel="$cache/$kernel_package"
    [[ -f "$kernel/.complete" ]] && return 0
    arm64_download "$suite" arm64 "$dir" "$kernel_package"
    # sid's image package holds neither: they are in the packages it depends on.
    local parts=("$kernel_package") part
    for part in $(dpkg-deb -f "$(newest "$dir" "$kernel_package")" Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//' |
        grep -E '^linux-(binary|modules)-[0-9]'); do
        arm64_download "$suite" arm64 "$dir" "$part"
        parts+=("$part")
    done
    step "unpacking $kernel_package: its image, evdev and uinput"
    rm -rf "$kernel" "$kernel.partial"
    mkdir -p "$kernel.partial/unpacked"
    for part in "${parts[@]}"; do
        dpkg-deb --fsys-tarfile "$(newest "$dir" "$part")" |
            tar -x -C "$kernel.partial/unpacked" --wildcards \
                './boot/vmlinuz-*' './usr/lib/modules/*/vmlinuz' \
                './*lib/modules/*/kernel/drivers/input/evdev.ko*' './*lib/modules/*/kernel/drivers/input/misc/uinput.ko*' \
                2>/dev/null || true
    done
    local image
    image=$(find "$kernel.partial/unpacked" -path '*/boot/vmlinuz-*' -o -path '*/modules/*/vmlinuz' | head -n 1)
    [[ -n "$image" ]] || fail "no kernel image in $kernel_package"
    mv "$image" "$kernel.partial/vmlinuz"
    local module file
    for module in evdev uinput; do
        file=$(find "$kernel.partial/unpacked" -name "$module.ko*" | head -n 1)
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
}

# kernel_settings NAME: the suite, metapackage, CPU and page size (KiB) of kernel NAME.
kernel_settings() {
    case "$1" in
        4k) echo "bookworm linux-image-arm64 cortex-a53 4" ;;
        16k) echo "sid linux-image-arm64-16k cortex-a76 16" ;;
        *) fail "unknown kernel $1 (4k, 16k)" ;;
    esac
}
IFS=, read -r -a kernel_names <<<"$kernels"
for name in "${kernel_names[@]}"; do
    read -r suite meta _ _ <<<"$(kernel_settings "$name")"
    fetch_kernel "$suite" "$meta"
done

if [[ -n $fetch_only ]]; then
    step "the package, the driver and the kernels ($kernels) are ready"
    exit 0
fi

step "the guest's root: busybox, the package, its libraries, the driver"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
initramfs="$work/root"
mkdir -p "$initramfs"/{bin,dev,proc,sys,lib/modules,panels,opt/e2e}
dpkg-deb -x "$(newest "$debs" busybox-static)" "$work/busybox"
cp "$work/busybox/bin/busybox" "$initramfs/bin/busybox"
ln -s busybox "$initramfs/bin/sh"
install -m 0755 vm/arm64/init.sh "$initramfs/init"
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
# boot NAME: boots kernel NAME with the initramfs (and that kernel's modules); returns the
# guest's status (124 when it never reported one, 1 when its page size is not the kernel's).
boot() {
    local suite meta cpu page
    read -r suite meta cpu page <<<"$(kernel_settings "$1")"
    fetch_kernel "$suite" "$meta"
    cp "$kernel/evdev.ko" "$kernel/uinput.ko" "$initramfs/lib/modules/"
    (cd "$initramfs" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) >"$work/initramfs.cpio"
    step "initramfs: $(du -m "$work/initramfs.cpio" | cut -f1) MB, ${#needed[@]} libraries (${needed[*]})"
    step "booting $kernel_package (qemu-system-aarch64 -M virt -cpu $cpu, TCG; timeout ${timeout_s}s)"
    local console="$work/console-$1.log"
    : >"$console"
    timeout -k 5 "$timeout_s" "$qemu" -machine virt -cpu "$cpu" -accel tcg -m 1024 -smp 1 \
        -nodefaults -display none -monitor none -no-reboot -serial "file:$console" \
        -kernel "$kernel/vmlinuz" -initrd "$work/initramfs.cpio" \
        -append "console=ttyAMA0 rdinit=/init quiet loglevel=1 panic=-1" \
        </dev/null >"$work/qemu.out" 2>&1 &
    local qemu_pid=$!
    tail -n +1 -f --pid="$qemu_pid" "$console" | sed -u 's/\r$//' &
    local tail_pid=$!
    local qemu_status=0
    wait "$qemu_pid" || qemu_status=$?
    wait "$tail_pid" || true
    local status
    status=$(sed -n 's/^vm-arm64: status \([0-9]*\).*/\1/p' "$console" | tail -n 1)
    step "$1 done (qemu exited with $qemu_status)"
    if [[ -z "$status" ]]; then
        echo "test-arm64-kernel: the guest never reported a status on $kernel_package (timeout ${timeout_s}s, panic or init failure)" >&2
        sed 's/^/  qemu: /' "$work/qemu.out" >&2
        return 124
    fi
    if ! grep -q "^vm-arm64: page size $page kB" "$console"; then
        echo "test-arm64-kernel: $kernel_package did not report $page kB pages: $(grep '^vm-arm64: page size' "$console")" >&2
        return 1
    fi
    return "$status"
}

overall=0
for name in "${kernel_names[@]}"; do
    result=0
    boot "$name" || result=$?
    echo "test-arm64-kernel: $name kernel: status $result"
    ((overall != 0)) || overall=$result
done
exit "$overall"
