#ifndef GESTURED_CSYSTEMD_SHIM_H
#define GESTURED_CSYSTEMD_SHIM_H
#include <systemd/sd-event.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-device.h>
#include <systemd/sd-journal.h>
#include <sys/epoll.h>

#endif
