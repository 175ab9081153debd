#ifndef GESTURED_CSYSTEMD_SHIM_H
#define GESTURED_CSYSTEMD_SHIM_H
/* libsystemd (Debian 12's libsystemd0), for Sources/Systemd: the one place it is used
   (sd_notify, sd_pid_notify_with_fds, sd_watchdog_enabled, sd_listen_fds_with_names,
   sd_journal_sendv; the daemon's loop on sd-event; hot-plug and udev properties on sd-device).
   SD_JOURNAL_SUPPRESS_LOCATION: sd-journal.h would otherwise turn sd_journal_sendv into a
   macro adding this header's own file and line; the handler sends the caller's instead. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-daemon.h>
#include <systemd/sd-device.h>
#include <systemd/sd-event.h>
#include <systemd/sd-journal.h>
#endif
