import Foundation
import SystemCalls

/// A DRM connector as the kernel shows it in sysfs (`/sys/class/drm/card0-Virtual-1`):
/// the driver's own reading of the display's power, for verdicts and failure messages,
/// independent of the daemon's (`DisplayPowerSysfs`).
struct DrmConnector {
    var name: String
    var status: String
    var dpms: String
    var enabled: String
    /// The modes it offers, preferred first (`1280x800`).
    var modes: [String]

    var isConnected: Bool { status == "connected" }
    /// Lit: DPMS on and a CRTC driving it.
    var isLit: Bool { dpms == "On" && enabled != "disabled" }

    static let directory = "/sys/class/drm"

    /// Every connector (`cardN-NAME`), sorted by name.
    static func all() -> [DrmConnector] {
        let names = ((try? Directory.entryNames(directory)) ?? []).filter { $0.hasPrefix("card") && $0.contains("-") }
        return names.sorted().map { name in
            func attribute(_ attribute: String) -> String {
                (try? RegularFile.read(path: "\(directory)/\(name)/\(attribute)", limit: 4096)).map {
                    String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                } ?? "?"
            }
            return DrmConnector(
                name: name, status: attribute("status"), dpms: attribute("dpms"), enabled: attribute("enabled"),
                modes: attribute("modes").split(separator: "\n").map(String.init))
        }
    }

    /// The connected connectors.
    static func connected() -> [DrmConnector] { all().filter(\.isConnected) }

    /// The connectors' state, for messages: `card0-Virtual-1: status=connected dpms=On enabled=enabled`.
    static func describeAll() -> String {
        let text = all().map { "\($0.name): status=\($0.status) dpms=\($0.dpms) enabled=\($0.enabled)" }
        return text.isEmpty ? "no DRM connector" : text.joined(separator: "; ")
    }
}
