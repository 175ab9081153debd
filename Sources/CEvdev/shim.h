#ifndef GESTURED_CEVDEV_SHIM_H
#define GESTURED_CEVDEV_SHIM_H
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <sys/ioctl.h>

/* UI_SET_PHYS on a /dev/uinput descriptor before the device is created (libevdev's
   uinput_create_from_device does not pass the template's phys on); 0 or -1 with errno. */
static inline int gestured_uinput_set_phys(int fd, const char *phys) {
    return ioctl(fd, UI_SET_PHYS, phys);
}

/* UI_GET_SYSNAME: the created device's name under /sys/devices/virtual/input ("input42");
   0 or -1 with errno (ENOENT when the descriptor's device is not created or destroyed). */
static inline int gestured_uinput_get_sysname(int fd, char *name, unsigned length) {
    return ioctl(fd, UI_GET_SYSNAME(length), name) < 0 ? -1 : 0;
}

/* UI_DEV_DESTROY: removes the device made on this descriptor, whoever else holds a copy of
   the descriptor; 0 or -1 with errno. */
static inline int gestured_uinput_destroy(int fd) {
    return ioctl(fd, UI_DEV_DESTROY);
}
#endif
