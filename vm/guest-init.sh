#!/bin/sh
# /init of the test VM's initramfs (busybox-static). Built into the image by vm/setup.sh.
#
# Three 9p shares come from vm/run.sh:
#   root  the host's / (or vm/run.sh --root DIR: DIR, under a tmpfs overlay), read-only -> /newroot
#   work  the host's work dir, rw        -> /newroot<same path>
#   ctl   a per-run host temp dir, rw    -> /ctl, and /run/vm inside the new root
# ctl holds `workdir` (the path) and `cmd.sh` (what to run) from the host; this script
# writes `stdout`, `stderr` and finally `status` (the exit status) there, then powers off.
# Progress lines go to the console (ttyS0, a log file on the host) as "vm-init: ...".
export PATH=/bin
/bin/busybox --install -s /bin

log() { echo "vm-init: [$(cut -d' ' -f1 /proc/uptime 2>/dev/null)] $*"; }
fail() {
    log "FAILED: $*"
    # No status file: the host reports "the guest never reported" and shows this log.
    poweroff -f
    sleep 5
    reboot -f
}

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
log "init started"

# VM_MODE=systemd (vm/run.sh --systemd): Debian's systemd as PID 1 on a writable overlay
# over the host's read-only root. Everything written (dpkg -i, useradd, /etc) lives in a
# tmpfs and vanishes at power-off. The command runs as the oneshot unit vm-test.service
# (part of the boot transaction); its output and status go to the ctl share, mounted at
# /vm in the new root. Before systemd starts, in a chroot of the new root:
# /vm/known-state.sh remove (a gestured package or source installation of the host's is
# purged, so the guest starts as a plain Debian without gestured), then /vm/before.sh when
# the host wrote one (as an image build would install a package).
boot_systemd() {
    mkdir -p /lower /upper
    mount -t 9p -o "$p9opts,ro,cache=${VM_ROOT_CACHE:-loose}" root /lower || fail "cannot mount the root share"
    mount -t tmpfs -o mode=755 tmpfs /upper || fail "cannot mount the overlay's tmpfs"
    mkdir -p /upper/u /upper/w
    mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w /newroot || fail "cannot mount the overlay root"
    mkdir -p /newroot/vm "/newroot$workdir"
    mount -o bind /ctl /newroot/vm || fail "cannot bind the ctl share"
    mount -t 9p -o "$p9opts,cache=${VM_WORK_CACHE:-mmap}" work "/newroot$workdir" || fail "cannot mount the work share at $workdir"
    while read -r tag path; do
        [ -n "$tag" ] || continue
        mkdir -p "/newroot$path"
        mount -t 9p -o "$p9opts,ro,cache=loose" "$tag" "/newroot$path" || fail "cannot mount the share $path"
    done < /ctl/shares

    # A fresh machine: no machine id (systemd makes a transient one), and none of the
    # services this host's administrator enabled (a database server, timers: each costs
    # seconds under emulation and none belongs to the test). Debian's own static units
    # (journald, udevd, logind, dbus, sockets.target …) stay, and so do gestured's
    # (known-state.sh, below, removes the host's).
    : > /newroot/etc/machine-id
    # The build host may be a container: its marker files would make systemd believe it
    # runs in one (console-getty, no udev trigger …). This is a VM.
    rm -f /newroot/.dockerenv /newroot/run/.containerenv
    for link in /newroot/etc/systemd/system/*.wants/* ; do
        unit=${link##*/}
        case "$unit" in gestured*|vm-test.service|'*') continue ;; esac
        ln -sf /dev/null "/newroot/etc/systemd/system/$unit"
    done
    # The console is the test's log, not a login prompt.
    ln -sf /dev/null /newroot/etc/systemd/system/serial-getty@ttyS0.service
    cat > /newroot/etc/systemd/system/vm-test.service <<UNIT
[Unit]
Description=the VM's test command (vm/run.sh --systemd)
After=basic.target
[Service]
Type=oneshot
ExecStart=/bin/sh -c '/bin/sh /vm/cmd.sh </dev/null >>/vm/stdout 2>>/vm/stderr; echo \$? > /vm/status.tmp; mv /vm/status.tmp /vm/status; sync'
ExecStopPost=/bin/systemctl poweroff --no-block
TimeoutStartSec=infinity
StandardOutput=journal+console
UNIT
    mkdir -p /newroot/etc/systemd/system/multi-user.target.wants
    ln -sf /etc/systemd/system/vm-test.service /newroot/etc/systemd/system/multi-user.target.wants/vm-test.service

    mount -t proc proc /newroot/proc
    mount -t sysfs sys /newroot/sys
    mount -t devtmpfs dev /newroot/dev
    # (after the container markers went: this tmpfs would hide /run/.containerenv)
    mount -t tmpfs -o mode=755 tmpfs /newroot/run
    # Whatever the host has installed of gestured, the guest starts without it; what was
    # removed is printed on the test's stderr.
    log "known-state.sh remove in the new root"
    chroot /newroot /bin/sh /vm/known-state.sh remove </dev/null >>/ctl/stderr 2>&1 || {
        log "known-state.sh failed"
        echo 125 > /ctl/status
        poweroff -f
    }

    if [ -f /ctl/before.sh ]; then
        log "running before.sh in the new root"
        chroot /newroot /bin/sh /vm/before.sh </dev/null >/ctl/before.out 2>&1 || {
            log "before.sh failed: $(tail -n 5 /ctl/before.out)"
            echo 125 > /ctl/status
            poweroff -f
        }
    fi
    umount /newroot/run /newroot/dev /newroot/sys /newroot/proc
    log "handing over to systemd"
    umount /proc /sys 2>/dev/null
    exec switch_root /newroot /lib/systemd/systemd
}

while read -r m || [ -n "$m" ]; do
    [ -n "$m" ] || continue
    # DRM and the virtio GPU only for a guest that has one (vm/run.sh --gpu).
    case "$m" in drm | drm_* | virtio_dma_buf | virtio-gpu) [ "${VM_GPU:-0}" = 1 ] || continue ;; esac
    insmod "/modules/$m.ko" || log "insmod $m failed"
done </modules/order

p9opts=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o "$p9opts,cache=none" ctl /ctl || fail "cannot mount the ctl share"
workdir=$(cat /ctl/workdir) || fail "no /ctl/workdir"

if [ "${VM_MODE:-chroot}" = systemd ]; then
    boot_systemd
fi

# The host's root, read-only. cache=loose: the guest reads binaries and libraries many
# times and nothing on the host should change them during a run.
if [ "${VM_ROOT_OVERLAY:-0}" = 1 ]; then
    # A root of its own (vm/run.sh --root): read-only too, under a tmpfs overlay, since it
    # lacks the mount points of the work directory and the shares.
    mkdir -p /lower /upper
    mount -t 9p -o "$p9opts,ro,cache=${VM_ROOT_CACHE:-loose}" root /lower || fail "cannot mount the root share"
    mount -t tmpfs -o mode=755 tmpfs /upper || fail "cannot mount the overlay's tmpfs"
    mkdir -p /upper/u /upper/w
    mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w /newroot || fail "cannot mount the overlay root"
else
    mount -t 9p -o "$p9opts,ro,cache=${VM_ROOT_CACHE:-loose}" root /newroot || fail "cannot mount the root share"
fi
mount -t proc proc /newroot/proc
mount -t sysfs sys /newroot/sys
mount -t devtmpfs dev /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts /newroot/dev/pts
mount -t tmpfs -o mode=1777 tmpfs /newroot/dev/shm
mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp
mount -t tmpfs -o mode=755 tmpfs /newroot/run
mkdir -p /newroot/run/vm
mount -o bind /ctl /newroot/run/vm || fail "cannot bind the ctl share"
# The work dir exists in the read-only root unless it lives under /tmp or /run (tmpfs now).
mkdir -p "/newroot$workdir" 2>/dev/null
mount -t 9p -o "$p9opts,cache=${VM_WORK_CACHE:-mmap}" work "/newroot$workdir" || fail "cannot mount the work share at $workdir"
# Extra read-only shares (vm/run.sh --share), each at its host path.
while read -r tag path; do
    [ -n "$tag" ] || continue
    mkdir -p "/newroot$path" 2>/dev/null
    mount -t 9p -o "$p9opts,ro,cache=loose" "$tag" "/newroot$path" || fail "cannot mount the share $path"
done < /ctl/shares

# The host's gestured installation, if any, hidden from the test (known-state.sh mask):
# the root is read-only, so its files are covered, not removed.
/bin/sh /ctl/known-state.sh mask /newroot </dev/null >>/ctl/stderr 2>&1 || fail "known-state.sh mask failed"

log "running the command in $workdir"
chroot /newroot /bin/sh /run/vm/cmd.sh </dev/null >>/ctl/stdout 2>>/ctl/stderr
status=$?
log "command exited with status $status"
echo "$status" > /ctl/status.tmp && mv /ctl/status.tmp /ctl/status
sync
poweroff -f
