/* Lets vm/smoke/uinput-check.swift call libevdev without a package target
 * (swiftc -import-objc-header; the package itself goes through CEvdev). */
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
