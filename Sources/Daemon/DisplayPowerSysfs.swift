import GestureCore
import SystemCalls

/// Whether the display is off, read from the kernel's sysfs: the DRM connectors
/// (`/sys/class/drm/card*-*`: `status`, `dpms`, `enabled`) and the backlights
/// (`/sys/class/backlight/*`: `bl_power`, `brightness`). Whatever blanked the screen (the
/// compositor's DPMS through swayidle or wlopm, a backlight switched off) shows there.
///
/// The display is off when every connected connector is off (`dpms` `Off`, or
/// `enabled` `disabled`: a compositor's DPMS off turns its CRTC off), or when every
/// backlight is off (`bl_power` not 0, or `brightness` 0). A connected output the
/// compositor does not use is off for good, so one screen still on means on; with no
/// connector and no backlight to read, nothing is known.
///
/// sysfs does not notify changes of these attributes (no uevent for DPMS; `poll` on them
/// does not wake), so they are read when asked: at a touch-down, a few small files.
enum DisplayPowerSysfs {
    /// One DRM connector: its directory name (`card0-HDMI-A-1`) and attributes.
    struct Connector: Sendable, Hashable {
        var name: String
        var status: String
        var dpms: String
        var enabled: String

        var isConnected: Bool { status == "connected" }
        /// An attribute that cannot be read says nothing (a connector is not taken for off).
        var isOff: Bool { ["Off", "Standby", "Suspend"].contains(dpms) || enabled == "disabled" }
    }

    /// One backlight: its directory name (`intel_backlight`) and attributes.
    struct Backlight: Sendable, Hashable {
        var name: String
        var power: String
        var brightness: String

        /// `bl_power` 0 is `FB_BLANK_UNBLANK`; anything else blanks.
        var isOff: Bool { (!power.isEmpty && power != "0") || brightness == "0" }
    }

    /// What one reading found.
    struct Reading: Sendable, Hashable {
        var connectors: [Connector] = []
        var backlights: [Backlight] = []

        var power: DisplayPower {
            let connected = connectors.filter(\.isConnected)
            if !connected.isEmpty && connected.allSatisfy(\.isOff) { return .off }
            if !backlights.isEmpty && backlights.allSatisfy(\.isOff) { return .off }
            return connected.isEmpty && backlights.isEmpty ? .unknown : .on(since: nil)
        }

        /// What is read, for the log: `card0-Virtual-1, backlight intel_backlight`.
        var sources: String {
            let names = connectors.filter(\.isConnected).map(\.name) + backlights.map { "backlight \($0.name)" }
            return names.isEmpty ? "none" : names.joined(separator: ", ")
        }
    }

    /// The sysfs class directory the kernel mounts.
    static let root = "/sys/class"

    /// Reads every connector and backlight under `root` (a missing directory or attribute
    /// reads as nothing there).
    static func read(root: String = root) -> Reading {
        var reading = Reading()
        let drm = root + "/drm"
        for name in entries(drm) where isConnector(name) {
            let directory = drm + "/" + name
            reading.connectors.append(
                Connector(
                    name: name, status: attribute(directory, "status"), dpms: attribute(directory, "dpms"),
                    enabled: attribute(directory, "enabled")))
        }
        let backlight = root + "/backlight"
        for name in entries(backlight) {
            let directory = backlight + "/" + name
            reading.backlights.append(
                Backlight(name: name, power: attribute(directory, "bl_power"), brightness: attribute(directory, "brightness")))
        }
        return reading
    }

    /// `card0-HDMI-A-1`, not `card0`, `renderD128` or `version`.
    static func isConnector(_ name: String) -> Bool {
        name.hasPrefix("card") && name.contains("-")
    }

    private static func entries(_ directory: String) -> [String] {
        ((try? Directory.entryNames(directory)) ?? []).sorted()
    }

    /// The attribute's text without its newline; empty when it cannot be read.
    private static func attribute(_ directory: String, _ name: String) -> String {
        // sysfs reports 4096 bytes for every attribute, whatever it holds.
        guard let bytes = try? RegularFile.read(path: directory + "/" + name, limit: 4096) else { return "" }
        return String(decoding: bytes, as: UTF8.self).trimmingWhitespace
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
