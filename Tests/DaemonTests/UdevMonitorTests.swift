import EvdevInput
import Testing

@testable import Daemon

@Suite struct UdevMonitorTests {
    /// What a udev event means to the daemon (UdevMonitor.swift): only an `eventN` node's add,
    /// remove and change.
    @Test func udevEventsBecomeDeviceChanges() {
        #expect(UdevMonitor.change(action: "add", devnode: "/dev/input/event5") == .added("/dev/input/event5"))
        #expect(UdevMonitor.change(action: "remove", devnode: "/dev/input/event5") == .removed("/dev/input/event5"))
        #expect(UdevMonitor.change(action: "change", devnode: "/dev/input/event5") == .attributesChanged("/dev/input/event5"))
        #expect(UdevMonitor.change(action: "bind", devnode: "/dev/input/event5") == nil)
        #expect(UdevMonitor.change(action: "add", devnode: "/dev/input/mouse0") == nil)
        #expect(UdevMonitor.change(action: "add", devnode: nil) == nil)
        #expect(UdevMonitor.change(action: nil, devnode: "/dev/input/event5") == nil)
    }
}
