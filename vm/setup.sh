#!/usr/bin/env bash
# Brings the parts of the test VM from Debian's own packages and caches them in vm/cache/.
#
#   vm/setup.sh [--quiet]
#
# Idempotent: a rerun with everything cached takes well under a second. What it does:
#   1. installs (apt-get, as root) qemu-system-x86, busybox-static, cpio, evemu-tools,
#      libevdev-dev, udev if any is missing (udev: the systemd-udevd that the e2e driver
#      starts inside the guest);
#   2. downloads (never installs) the kernel package linux-image-amd64 depends on, keeps
#      boot/vmlinuz-* and the few modules the guest needs, and decompresses the bzImage's
#      xz payload to an ELF vmlinux that qemu boots directly through its PVH entry point;
#   3. builds a busybox-static initramfs around vm/guest-init.sh.
# It finally writes vm/cache/current.env, which vm/run.sh reads.
#
# Exit status: 0 ready; 77 when qemu is missing and cannot be installed here (the "skip"
# convention); 1 on any other failure.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache="$here/cache"
quiet=0
[[ "${1:-}" == "--quiet" ]] && quiet=1

say() { [[ $quiet == 1 ]] || echo "vm/setup: $*" >&2; }
die() { echo "vm/setup: error: $*" >&2; exit 1; }

# Modules in insmod order (each depends only on those before it). virtio_ring must
# precede virtio; virtio_input is optional (a virtio tablet for smoke tests).
# overlay: the writable root of the systemd tier (vm/run.sh --systemd). The DRM ones, up to
# virtio-gpu, are loaded only with a virtio GPU (vm/run.sh --gpu; guest-init.sh).
modules=(virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci
         netfs fscache 9pnet 9pnet_virtio 9p overlay evdev uinput virtio_input
         drm drm_kms_helper drm_shmem_helper virtio_dma_buf virtio-gpu)
packages=(qemu-system-x86 busybox-static cpio evemu-tools libevdev-dev udev)

# --- 1. host packages ---------------------------------------------------------------
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
apt_updated=0
apt_update() {
    [[ $apt_updated == 1 ]] && return 0
    say "apt-get update"
    apt-get update -qq >&2 || return 1
    apt_updated=1
}
if ((${#missing[@]})); then
    if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
        if ! command -v qemu-system-x86_64 >/dev/null; then
            echo "vm/setup: qemu-system-x86_64 is not installed and this user cannot install it (need root and apt-get)" >&2
            exit 77
        fi
        die "missing packages (${missing[*]}) and cannot install them (need root and apt-get)"
    fi
    say "installing ${missing[*]}"
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2; then
        apt_update || true
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 \
            || { command -v qemu-system-x86_64 >/dev/null || { echo "vm/setup: could not install qemu-system-x86" >&2; exit 77; }
                 die "could not install ${missing[*]}"; }
    fi
fi
command -v qemu-system-x86_64 >/dev/null || { echo "vm/setup: qemu-system-x86_64 not found after installing" >&2; exit 77; }

mkdir -p "$cache"
# One setup at a time per checkout (test runs may start together).
exec 9>"$cache/.lock"
flock 9

# --- 2. kernel --------------------------------------------------------------------------
# The kernel package is whatever linux-image-amd64 depends on (linux-image-6.1.0-N-amd64).
kernel_package() {
    apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ && !found { print $2; found = 1 }' || true
}
kpkg=${VM_KERNEL_PACKAGE:-$(kernel_package)}
if [[ -z "$kpkg" ]]; then
    # No package lists yet (or offline): refresh once, else fall back to the cached kernel.
    if apt_update; then kpkg=$(kernel_package) || true; fi
fi
if [[ -z "$kpkg" ]]; then
    if [[ -f "$cache/current.env" ]]; then
        say "cannot ask apt for the kernel package; using the cached one"
        kpkg=$(sed -n 's/^VM_KERNEL_PACKAGE=//p' "$cache/current.env")
    else
        die "cannot find the kernel package linux-image-amd64 depends on (apt-cache depends linux-image-amd64)"
    fi
fi
kver=${kpkg#linux-image-}
kdir="$cache/kernel-$kver"

# A cached kernel with another module list (an older setup.sh) is fetched again.
if [[ ! -f "$kdir/.complete" || "$(cat "$kdir/modules/order" 2>/dev/null)" != "$(printf '%s\n' "${modules[@]}")" ]]; then
    say "fetching $kpkg (apt-get download, not installed)"
    rm -rf "$kdir" && mkdir -p "$kdir/modules"
    dl=$(mktemp -d "$cache/download.XXXXXX")
    trap 'rm -rf "$dl"' EXIT
    # apt-get download drops privileges to _apt, which cannot write into root-owned dirs.
    chmod 777 "$dl"
    (cd "$dl" && apt-get download -qq "$kpkg" >&2) \
        || { apt_update && (cd "$dl" && apt-get download -qq "$kpkg" >&2); } \
        || die "apt-get download $kpkg failed"
    deb=$(ls "$dl"/*.deb)
    patterns=("./boot/vmlinuz-*")
    for m in "${modules[@]}"; do patterns+=("./lib/modules/*/$m.ko" "./lib/modules/*/$m.ko.xz" "./lib/modules/*/$m.ko.zst"); done
    say "extracting vmlinuz and ${#modules[@]} modules"
    # tar exits non-zero for patterns that match nothing (.ko.xz vs .ko): check files instead.
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dl" --wildcards "${patterns[@]}" 2>/dev/null || true
    # shellcheck disable=SC2012  # our own file names (no newlines); ls also drops a pattern that matched nothing
    vmlinuz=$(ls "$dl"/boot/vmlinuz-* 2>/dev/null | head -n1)
    [[ -n "$vmlinuz" ]] || die "no boot/vmlinuz-* in $deb"
    cp "$vmlinuz" "$kdir/vmlinuz"
    for m in "${modules[@]}"; do
        f=$(find "$dl/lib/modules" -name "$m.ko" -o -name "$m.ko.xz" -o -name "$m.ko.zst" | head -n1)
        [[ -n "$f" ]] || die "module $m not found in $kpkg"
        case "$f" in
            *.ko.xz)  xz -dc "$f" > "$kdir/modules/$m.ko" ;;
            *.ko.zst) zstd -qdc "$f" > "$kdir/modules/$m.ko" ;;
            *)        cp "$f" "$kdir/modules/$m.ko" ;;
        esac
    done
    printf '%s\n' "${modules[@]}" > "$kdir/modules/order"

    say "decompressing the bzImage payload to an ELF vmlinux (PVH boot skips ~6 s of TCG decompression)"
    python3 - "$kdir/vmlinuz" "$kdir/vmlinux" <<'PY'
import lzma, sys
data = open(sys.argv[1], "rb").read()
magic = b"\xfd7zXZ\x00"
start = 0
while True:
    at = data.find(magic, start)
    if at < 0:
        sys.exit("no xz payload with an ELF inside found in " + sys.argv[1])
    try:
        out = lzma.LZMADecompressor(lzma.FORMAT_XZ).decompress(data[at:])
    except lzma.LZMAError:
        out = b""
    if out[:4] == b"\x7fELF":
        open(sys.argv[2], "wb").write(out)
        break
    start = at + 1
PY
    rm -rf "$dl"; trap - EXIT
    touch "$kdir/.complete"
fi

# --- 3. initramfs -----------------------------------------------------------------------
busybox=/bin/busybox
[[ -x $busybox ]] || die "$busybox is missing (busybox-static)"
if command -v file >/dev/null; then
    file -L "$busybox" | grep -q 'statically linked' || die "$busybox is not the static one (busybox-static)"
fi
key=$(cat "$here/guest-init.sh" "$kdir/modules/order" "$busybox" | sha256sum | cut -c1-16)
initrd="$cache/initramfs-$kver-$key.cpio.gz"
if [[ ! -f "$initrd" ]]; then
    say "building the initramfs"
    root=$(mktemp -d "$cache/initramfs.XXXXXX")
    trap 'rm -rf "$root"' EXIT
    mkdir -p "$root"/{bin,dev,proc,sys,newroot,ctl,modules}
    cp "$busybox" "$root/bin/busybox"
    ln -s busybox "$root/bin/sh"
    cp "$here/guest-init.sh" "$root/init" && chmod 755 "$root/init"
    cp "$kdir"/modules/* "$root/modules/"
    (cd "$root" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet | gzip -6) > "$initrd.tmp"
    mv "$initrd.tmp" "$initrd"
    rm -rf "$root"; trap - EXIT
    # Drop initramfs images built from older inputs.
    find "$cache" -maxdepth 1 -name 'initramfs-*.cpio.gz' ! -name "$(basename "$initrd")" -delete
fi

cat > "$cache/current.env.tmp" <<EOF
VM_KERNEL_PACKAGE=$kpkg
VM_KERNEL_VERSION=$kver
VM_KERNEL=$kdir/vmlinux
VM_INITRD=$initrd
EOF
mv "$cache/current.env.tmp" "$cache/current.env"
say "ready: kernel $kver"
