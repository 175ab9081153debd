// uinput-check: proves, inside the VM, the path the Swift e2e driver will take: the host's
// Swift runtime and libevdev load, /dev/uinput accepts libevdev_uinput_create_from_device,
// the new /dev/input/eventN appears without udev, and an event written through uinput
// reaches a reader that opened the node first.
#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    print("uinput-check: FAIL: \(message)")
    exit(1)
}

let name = "gestured vm smoke touchscreen"
guard let template = libevdev_new() else { fail("libevdev_new") }
libevdev_set_name(template, name)
libevdev_enable_property(template, UInt32(INPUT_PROP_DIRECT))
libevdev_enable_event_code(template, UInt32(EV_KEY), UInt32(BTN_TOUCH), nil)
for (code, maximum) in [(ABS_X, 3312), (ABS_Y, 1872), (ABS_MT_POSITION_X, 3312), (ABS_MT_POSITION_Y, 1872),
                        (ABS_MT_SLOT, 9), (ABS_MT_TRACKING_ID, 65535)] {
    var info = input_absinfo(value: 0, minimum: 0, maximum: Int32(maximum), fuzz: 0, flat: 0,
                             resolution: code == ABS_MT_SLOT || code == ABS_MT_TRACKING_ID ? 0 : 12)
    guard libevdev_enable_event_code(template, UInt32(EV_ABS), UInt32(code), &info) == 0 else {
        fail("enable ABS code \(code)")
    }
}

var uinput: OpaquePointer?
let created = libevdev_uinput_create_from_device(template, LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue, &uinput)
guard created == 0, let uinput else { fail("libevdev_uinput_create_from_device: \(String(cString: strerror(-created)))") }
guard let nodePointer = libevdev_uinput_get_devnode(uinput) else { fail("no devnode") }
let node = String(cString: nodePointer)
print("uinput-check: created \(node)")

// Open the node before writing anything: earlier events are never delivered to this reader.
let fd = open(node, O_RDONLY | O_NONBLOCK)
guard fd >= 0 else { fail("open \(node): \(String(cString: strerror(errno)))") }
var reader: OpaquePointer?
guard libevdev_new_from_fd(fd, &reader) == 0, let reader else { fail("libevdev_new_from_fd") }
let readName = String(cString: libevdev_get_name(reader))
guard readName == name else { fail("name \(readName)") }
guard libevdev_has_property(reader, UInt32(INPUT_PROP_DIRECT)) == 1,
      libevdev_get_abs_maximum(reader, UInt32(ABS_MT_POSITION_X)) == 3312,
      libevdev_get_abs_resolution(reader, UInt32(ABS_MT_POSITION_X)) == 12,
      libevdev_get_num_slots(reader) == 10 else { fail("capabilities differ from the template") }

let frame: [(Int32, Int32, Int32)] = [
    (Int32(EV_ABS), Int32(ABS_MT_SLOT), 0), (Int32(EV_ABS), Int32(ABS_MT_TRACKING_ID), 7),
    (Int32(EV_ABS), Int32(ABS_MT_POSITION_X), 1000), (Int32(EV_ABS), Int32(ABS_MT_POSITION_Y), 500),
    (Int32(EV_KEY), Int32(BTN_TOUCH), 1), (Int32(EV_ABS), Int32(ABS_X), 1000), (Int32(EV_ABS), Int32(ABS_Y), 500),
    (Int32(EV_SYN), Int32(SYN_REPORT), 0),
]
for (type, code, value) in frame {
    guard libevdev_uinput_write_event(uinput, UInt32(type), UInt32(code), value) == 0 else { fail("write event") }
}

var pollDescriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
var received: [(UInt16, UInt16, Int32)] = []
while received.last.map({ $0.0 != UInt16(EV_SYN) }) ?? true {
    guard poll(&pollDescriptor, 1, 10_000) == 1 else { fail("no event within 10 s") }
    var event = input_event()
    while libevdev_next_event(reader, LIBEVDEV_READ_FLAG_NORMAL.rawValue, &event) == LIBEVDEV_READ_STATUS_SUCCESS.rawValue {
        received.append((event.type, event.code, event.value))
    }
}
// The kernel drops events that repeat the current value: ABS_MT_SLOT 0 (slot 0 is current).
let expected = frame.filter { !($0.0 == Int32(EV_ABS) && $0.1 == Int32(ABS_MT_SLOT)) }
guard received.count == expected.count,
      zip(received, expected).allSatisfy({ Int32($0.0) == $1.0 && Int32($0.1) == $1.1 && $0.2 == $1.2 }),
      libevdev_get_slot_value(reader, 0, UInt32(ABS_MT_POSITION_X)) == 1000,
      libevdev_get_event_value(reader, UInt32(EV_KEY), UInt32(BTN_TOUCH)) == 1 else {
    fail("received \(received)")
}
libevdev_free(reader)
close(fd)
libevdev_uinput_destroy(uinput)
print("uinput-check: ok: \(received.count) events through uinput -> evdev -> libevdev")
