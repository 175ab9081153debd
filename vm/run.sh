#!/usr/bin/env bash
# Runs one command inside a throwaway VM (Debian's kernel under qemu) and returns its status.
#
#   vm/run.sh [--timeout SECONDS] [--share DIR]... [--] COMMAND [ARG...]
#
# The guest sees the host's / read-only (so the host's toolchain, Swift runtime, libevdev and
# evemu are all there), the current directory read-write at the same path, fresh tmpfs on
# /tmp and /run, devtmpfs on /dev (with /dev/uinput and /dev/input/eventN), evdev and uinput
# loaded, no udev running (a test may start one), no network. Each --share DIR is also shared read-only at its own (physical)
# path: needed for directories the guest's fresh /tmp and /run would hide (a corpus beside a
# checkout under /tmp, as in CI's clones). COMMAND runs as root from the current directory, under the
# host's PATH, with stdin from /dev/null; its stdout and stderr are streamed here.
#
# --gpu adds a virtio GPU (`-device virtio-gpu-pci`) and loads its DRM driver: the guest
# then has /dev/dri/card0 and a DRM connector in /sys/class/drm, for a compositor on its DRM
# backend (WLR_BACKENDS=drm,libinput) whose output can be switched off (DPMS).
#
# --root DIR boots DIR as the guest's root instead of the host's / (read-only too, with a
# tmpfs overlay over it so that the work directory and the shares find their mount points):
# the kiosk tier's Debian 13 root (vm/kiosk-root.sh). Not with --systemd.
#
# --systemd boots Debian's systemd as PID 1 instead (on a writable tmpfs overlay over the
# read-only host root; 1024 MiB): COMMAND runs as the oneshot unit vm-test.service during
# boot, with the ctl directory at /vm; the host administrator's enabled services are
# masked. --before-boot 'SHELL COMMAND' runs first, in a chroot of that root before systemd
# starts (e.g. dpkg -i, as an image build would); its output is printed on failure (125).
#
# Either way the guest starts from a known state whatever this host has installed of
# gestured (vm/known-state.sh, run by the guest init before --before-boot and COMMAND):
# under --systemd a host's gestured package is purged and a source installation removed
# in the overlay; without it (read-only root) their files are hidden. Each thing removed or
# hidden is printed as a "vm/known-state: ..." line on stderr.
#
# Exit status: COMMAND's own status; 124 when the guest never reported one (timeout, kernel
# panic, init failure: the console log's tail is printed); 77 when qemu cannot run at all on
# this machine (the "skip" convention; the reason is printed).
#
# Environment: VM_ACCEL (kvm|tcg; default kvm only with kvm_intel/kvm_amd loaded),
# VM_MEMORY (MiB, default 512), VM_SMP (vCPUs, default 1), VM_KEEP=1 keeps the run's temp
# dir (console log, output) and prints its path, VM_VERBOSE=1 shows the kernel's messages,
# VM_APPEND adds kernel parameters (NAME=VALUE ones reach the guest init's environment),
# VM_QEMU_ARGS adds qemu arguments (split on spaces).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
timeout_s=600
shares=()
systemd=0
before_boot=""
gpu=0
root_dir=/
while (($#)); do
    case "$1" in
        --share) shares+=("$(cd "${2:?--share needs a directory}" && pwd -P)"); shift 2 ;;
        --systemd) systemd=1; shift ;;
        --gpu) gpu=1; shift ;;
        --root) root_dir=$(cd "${2:?--root needs a directory}" && pwd -P); shift 2 ;;
        --before-boot) before_boot=${2:?--before-boot needs a command}; shift 2 ;;
        --timeout) timeout_s=${2:?--timeout needs seconds}; shift 2 ;;
        --timeout=*) timeout_s=${1#--timeout=}; shift ;;
        --) shift; break ;;
        -*) echo "vm/run: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
(($#)) || { echo "usage: vm/run.sh [--timeout S] [--share DIR]... [--gpu] [--root DIR] [--systemd [--before-boot 'SHELL COMMAND']] [--] COMMAND [ARG...]" >&2; exit 2; }
[[ -z "$before_boot" || $systemd == 1 ]] || { echo "vm/run: --before-boot goes with --systemd" >&2; exit 2; }
[[ $root_dir == / || $systemd == 0 ]] || { echo "vm/run: --root does not go with --systemd" >&2; exit 2; }

skip() { echo "vm/run: qemu cannot run here: $*" >&2; exit 77; }

qemu=$(command -v qemu-system-x86_64 || true)
[[ -n "$qemu" ]] || skip "qemu-system-x86_64 is not installed (run vm/setup.sh as root)"

# Always: a no-op under a second when nothing changed, and an edited guest-init.sh or
# module list must not boot a stale image.
"$here/setup.sh" --quiet || exit $?
# shellcheck source=/dev/null
source "$here/cache/current.env"

accel=${VM_ACCEL:-}
if [[ -z "$accel" ]]; then
    # /dev/kvm alone is not enough: a PVM-only nested KVM (kvm_pvm) hangs a stock kernel.
    if [[ -d /sys/module/kvm_intel || -d /sys/module/kvm_amd ]] && [[ -w /dev/kvm ]]; then
        accel=kvm
    else
        accel=tcg
    fi
fi
cpu=max
[[ $accel == kvm ]] && cpu=host

# Can qemu start at all here (libraries, accelerator, memory)? A machine-less start that
# quits at once tells apart "cannot run here" (skip) from a failing guest (failure).
if ! probe=$(echo quit | timeout 30 "$qemu" -machine none -accel "$accel" -nodefaults -display none -monitor stdio 2>&1 >/dev/null); then
    skip "qemu-system-x86_64 -accel $accel does not start: ${probe:-timed out}"
fi

ctl=$(mktemp -d "${TMPDIR:-/tmp}/vm-run.XXXXXX")
tails=()
# shellcheck disable=SC2317  # run by the EXIT trap below
cleanup() {
    if [[ -n "${qemu_pid:-}" ]]; then kill "$qemu_pid" 2>/dev/null || true; fi
    if [[ ${#tails[@]} -gt 0 ]]; then kill "${tails[@]}" 2>/dev/null || true; fi
    if [[ "${VM_KEEP:-0}" == 1 ]]; then
        echo "vm/run: kept $ctl" >&2
    else
        rm -rf "$ctl"
    fi
}
trap cleanup EXIT

workdir=$(pwd -P)
printf '%s\n' "$workdir" > "$ctl/workdir"
# The guest init runs it before the command: the guest without the host's gestured.
cp "$here/known-state.sh" "$ctl/known-state.sh"
share_args=()
: > "$ctl/shares"
for index in "${!shares[@]}"; do
    printf 'share%d %s\n' "$index" "${shares[$index]}" >> "$ctl/shares"
    share_args+=(-fsdev "local,id=share$index,path=${shares[$index]},readonly=on,security_model=none,multidevs=remap"
                 -device "virtio-9p-pci,fsdev=share$index,mount_tag=share$index")
done
{
    echo 'set -e'
    printf 'export PATH=%q HOME=/root TERM=dumb LANG=C.UTF-8\n' "$PATH"
    printf 'cd %q\n' "$workdir"
    echo 'set +e'
    printf 'exec'; printf ' %q' "$@"; echo
} > "$ctl/cmd.sh"
if [[ -n "$before_boot" ]]; then
    {
        printf 'export PATH=%q HOME=/root TERM=dumb LANG=C.UTF-8\n' "$PATH"
        printf 'cd %q\n' "$workdir"
        printf '%s\n' "$before_boot"
    } > "$ctl/before.sh"
fi
mode_append=""
gpu_args=()
read -ra extra_qemu_args <<<"${VM_QEMU_ARGS:-}"
if ((gpu)); then
    mode_append="VM_GPU=1"
    gpu_args=(-device virtio-gpu-pci)
fi
[[ $root_dir == / ]] || mode_append="$mode_append VM_ROOT_OVERLAY=1"
memory=${VM_MEMORY:-512}
if ((systemd)); then
    mode_append="$mode_append VM_MODE=systemd"
    memory=${VM_MEMORY:-1024}
fi
: > "$ctl/stdout"; : > "$ctl/stderr"; : > "$ctl/console.log"

# no_timer_check: under TCG on a busy host the guest's check of its timer interrupt at boot
# can miss its window and panic ("IO-APIC + timer doesn't work"); the check finds broken
# hardware, and QEMU's emulated timer is not that.
loglevel="quiet loglevel=1 no_timer_check"
[[ "${VM_VERBOSE:-0}" == 1 ]] && loglevel="loglevel=7"

started=$EPOCHREALTIME
timeout -k 5 "$timeout_s" "$qemu" \
    -accel "$accel" -cpu "$cpu" -machine pc -m "$memory" -smp "${VM_SMP:-1}" \
    -nodefaults -nographic -no-reboot -monitor none \
    -serial "file:$ctl/console.log" \
    -kernel "$VM_KERNEL" -initrd "$VM_INITRD" \
    -append "console=ttyS0 panic=-1 $loglevel rdinit=/init $mode_append ${VM_APPEND:-}" \
    -fsdev "local,id=root,path=$root_dir,readonly=on,security_model=none,multidevs=remap" \
    -device "virtio-9p-pci,fsdev=root,mount_tag=root" \
    -fsdev "local,id=work,path=$workdir,security_model=none,multidevs=remap" \
    -device "virtio-9p-pci,fsdev=work,mount_tag=work" \
    -fsdev "local,id=ctl,path=$ctl,security_model=none" \
    -device "virtio-9p-pci,fsdev=ctl,mount_tag=ctl" \
    "${share_args[@]}" \
    "${gpu_args[@]}" \
    "${extra_qemu_args[@]}" \
    </dev/null >"$ctl/qemu.out" 2>&1 &
qemu_pid=$!
# Stream the command's output as the guest writes it through 9p; each tail reads its file
# one last time once qemu is gone.
tail -n +1 -f --pid="$qemu_pid" "$ctl/stdout" &
tails+=("$!")
tail -n +1 -f --pid="$qemu_pid" "$ctl/stderr" >&2 &
tails+=("$!")
set +e
wait "$qemu_pid"
qemu_status=$?
wait "${tails[@]}"
set -e
qemu_pid=''
tails=()
elapsed=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

# The console log's last lines, without the firmware's terminal escapes.
show_console() {
    sed 's/\x1bc//g; s/\x1b\[[0-9;?]*[A-Za-z]//g; s/\r//g' "$ctl/console.log" | tail -n "$1" | sed 's/^/  | /' >&2
}

if [[ -f "$ctl/status" ]]; then
    status=$(cat "$ctl/status")
    [[ "${VM_VERBOSE:-0}" == 1 ]] && echo "vm/run: guest exited $status after ${elapsed}s" >&2
    if [[ "$status" == 125 && -f "$ctl/before.out" ]]; then
        echo "vm/run: preparing the guest's root failed (known-state.sh's lines above; --before-boot's below):" >&2
        sed 's/^/  before-boot: /' "$ctl/before.out" >&2
    elif [[ "$status" != 0 ]]; then
        echo "vm/run: command exited with status $status in the guest; console log tail:" >&2
        show_console 25
    fi
    exit "$status"
fi

if ((qemu_status == 124 || qemu_status == 137)); then
    echo "vm/run: the guest never reported: timed out after ${timeout_s}s" >&2
else
    echo "vm/run: the guest never reported (qemu exited with $qemu_status after ${elapsed}s)" >&2
fi
[[ -s "$ctl/qemu.out" ]] && sed 's/^/  qemu: /' "$ctl/qemu.out" >&2
echo "vm/run: console log tail:" >&2
show_console 40
exit 124
