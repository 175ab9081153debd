import GestureCore
import GestureTestSupport
import Testing

@testable import Daemon

/// `DisplayPowerSysfs`: the display's power from sysfs-shaped trees of real files (a real
/// sysfs cannot be written for a test; the reading code is the daemon's).
@Suite struct DisplayPowerSysfsTests {
    /// A `class` directory with DRM connectors `(name, status, dpms, enabled)` and
    /// backlights `(name, bl_power, brightness)`; nil attributes are left out.
    static func tree(
        connectors: [(String, String, String?, String?)] = [], backlights: [(String, String?, String)] = []
    ) -> TemporaryDirectory {
        let root = TemporaryDirectory()
        _ = root.createDirectory("drm")
        _ = root.createDirectory("drm/card0")
        _ = root.createFile("drm/version", text: "drm 1.1.0 20060810\n")
        for (name, status, dpms, enabled) in connectors {
            _ = root.createDirectory("drm/\(name)")
            _ = root.createFile("drm/\(name)/status", text: status + "\n")
            if let dpms { _ = root.createFile("drm/\(name)/dpms", text: dpms + "\n") }
            if let enabled { _ = root.createFile("drm/\(name)/enabled", text: enabled + "\n") }
        }
        if !backlights.isEmpty { _ = root.createDirectory("backlight") }
        for (name, power, brightness) in backlights {
            _ = root.createDirectory("backlight/\(name)")
            if let power { _ = root.createFile("backlight/\(name)/bl_power", text: power + "\n") }
            _ = root.createFile("backlight/\(name)/brightness", text: brightness + "\n")
        }
        return root
    }

    static func power(_ root: TemporaryDirectory) -> DisplayPower { DisplayPowerSysfs.read(root: root.path).power }

    @Test func aConnectorSwitchedOffByDPMSIsOff() {
        #expect(Self.power(Self.tree(connectors: [("card0-Virtual-1", "connected", "On", "enabled")])) == .on(since: nil))
        #expect(Self.power(Self.tree(connectors: [("card0-Virtual-1", "connected", "Off", "enabled")])) == .off)
        #expect(Self.power(Self.tree(connectors: [("card0-Virtual-1", "connected", "On", "disabled")])) == .off)
    }

    @Test func oneConnectedScreenOnIsOnWhateverTheUnusedOrDisconnectedOnesSay() {
        let root = Self.tree(connectors: [
            ("card0-HDMI-A-1", "connected", "On", "enabled"), ("card0-HDMI-A-2", "connected", "Off", "disabled"),
            ("card0-DP-1", "disconnected", "Off", "disabled"),
        ])
        #expect(Self.power(root) == .on(since: nil))
        let onlyDisconnected = Self.tree(connectors: [("card0-DP-1", "disconnected", "Off", "disabled")])
        #expect(Self.power(onlyDisconnected) == .unknown)
    }

    @Test func aBacklightPoweredDownOrAtZeroIsOffWithTheConnectorOn() {
        let on = [("card0-eDP-1", "connected", String?("On"), String?("enabled"))]
        #expect(Self.power(Self.tree(connectors: on, backlights: [("intel_backlight", "0", "400")])) == .on(since: nil))
        #expect(Self.power(Self.tree(connectors: on, backlights: [("intel_backlight", "4", "400")])) == .off)
        #expect(Self.power(Self.tree(connectors: on, backlights: [("intel_backlight", "0", "0")])) == .off)
        #expect(Self.power(Self.tree(backlights: [("rpi_backlight", nil, "0")])) == .off)
    }

    @Test func nothingReadableIsUnknownNotOff() {
        #expect(Self.power(TemporaryDirectory()) == .unknown)
        // A connector whose dpms cannot be read is not taken for off.
        #expect(Self.power(Self.tree(connectors: [("card0-Virtual-1", "connected", nil, nil)])) == .on(since: nil))
        #expect(DisplayPowerSysfs.read(root: "/nonexistent").sources == "none")
    }
}
