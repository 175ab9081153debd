#ifndef GESTURED_CUDEV_SHIM_H
#define GESTURED_CUDEV_SHIM_H
/* libudev (Debian 12's libudev1 needs only libc6), for Sources/Daemon/UdevMonitor.swift and
   UdevDatabase.swift: the one place it is used (hot-plug and the udev properties of a device
   node). */
#include <libudev.h>
#endif
