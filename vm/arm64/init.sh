#!/bin/sh
# /init of the arm64-kernel tier's initramfs (busybox-static for arm64), which is the whole
# root: the arm64 package's files, the Debian 12 arm64 libraries they load, the e2e driver
# and the panels' descriptions. Built by vm/test-arm64-kernel.sh, which reads the console
# (ttyAMA0): everything /cmd.sh prints, then "vm-arm64: status N" (its exit status) last.
/bin/busybox --install -s /bin
export PATH=/usr/bin:/usr/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm /run /tmp
mount -t tmpfs -o mode=755 tmpfs /run
mount -t tmpfs -o mode=1777 tmpfs /tmp
# Debian's arm64 kernel builds both as modules.
for module in evdev uinput; do
    insmod "/lib/modules/$module.ko" || echo "vm-arm64: insmod $module failed"
done
echo "vm-arm64: kernel $(uname -r) on $(uname -m), $(grep -c ^processor /proc/cpuinfo) CPU," \
    "CPU part $(sed -n 's/^CPU part\t*: //p' /proc/cpuinfo | head -n 1)"
# The kernel's page size (vm/test-arm64-kernel.sh checks it is the kernel's own).
echo "vm-arm64: page size $(sed -n 's/^KernelPageSize: *//p' /proc/self/smaps | head -n 1)"
sh /cmd.sh </dev/null
echo "vm-arm64: status $?"
sync
poweroff -f
