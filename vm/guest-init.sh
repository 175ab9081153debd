#!/bin/sh
# /init of the test VM's initramfs (busybox-static). Built into the image by vm/setup.sh.
#
# Three 9p shares come from vm/run.sh:
#   root  the host's /, read-only       -> /newroot
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

for m in $(cat /modules/order); do
    insmod "/modules/$m.ko" || log "insmod $m failed"
done

p9opts=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o "$p9opts,cache=none" ctl /ctl || fail "cannot mount the ctl share"
workdir=$(cat /ctl/workdir) || fail "no /ctl/workdir"

# The host's root, read-only. cache=loose: the guest reads binaries and libraries many
# times and nothing on the host should change them during a run.
mount -t 9p -o "$p9opts,ro,cache=${VM_ROOT_CACHE:-loose}" root /newroot || fail "cannot mount the root share"
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

log "running the command in $workdir"
chroot /newroot /bin/sh /run/vm/cmd.sh </dev/null >/ctl/stdout 2>/ctl/stderr
status=$?
log "command exited with status $status"
echo "$status" > /ctl/status.tmp && mv /ctl/status.tmp /ctl/status
sync
poweroff -f
