import GestureCore
import Testing

@testable import Daemon

/// The `STATUS=` line `systemctl status` shows.
@Suite struct StatusLineTests {
    @Test func countsDevicesAndClients() {
        #expect(Daemon.statusLine(devices: 1, clients: 0, unmatched: []) == "1 device, 0 clients")
        #expect(Daemon.statusLine(devices: 2, clients: 1, unmatched: []) == "2 devices, 1 client")
    }

    @Test func namesEachUnmatchedTouchscreenWithAPatternForIt() {
        let unmatched = [
            UnmatchedTouchscreen(deviceName: "10-0038 generic ft5x06 (00)"),
            UnmatchedTouchscreen(deviceName: "4-005d Goodix Capacitive TouchScreen"),
        ]
        #expect(
            Daemon.statusLine(devices: 2, clients: 0, unmatched: unmatched)
                == "2 devices, 0 clients; touchscreen \"10-0038 generic ft5x06 (00)\" matches no [[device]] entry, so it is not passed"
                + " through; match-name = \"*generic ft5x06 (*)\" would match it; touchscreen \"4-005d Goodix Capacitive TouchScreen\""
                + " matches no [[device]] entry, so it is not passed through; match-name = \"*Goodix Capacitive TouchScreen\" would match it"
        )
    }

    /// A device name is the kernel's, set by whoever made the device: a newline in it must
    /// not start another `sd_notify` field.
    @Test func aNewlineInADeviceNameStaysOnTheLine() {
        let line = Daemon.statusLine(devices: 1, clients: 0, unmatched: [UnmatchedTouchscreen(deviceName: "panel\nREADY=1")])
        #expect(!line.contains("\n"))
        #expect(line.contains("panel\\nREADY=1"))
    }
}
