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
#endif
