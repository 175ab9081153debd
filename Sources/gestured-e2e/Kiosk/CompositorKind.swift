import Foundation
import GestureCore
import Glibc
import SystemCalls

/// The compositors the kiosk tier runs, and how each is told which client to show: adding
/// a compositor is a new case here (its command line and configuration) and an entry in
/// `KioskRoot`'s table of stacks.
enum CompositorKind: String, CaseIterable {
    /// cage 0.1.4 (Debian 12): one fullscreen client, given on its command line.
    case cage
    /// sway 1.7 (Debian 12): a tiling compositor whose configuration starts the client.
    case sway
    /// labwc 0.8 (Debian 13; Raspberry Pi OS's compositor): a stacking compositor whose
    /// `autostart` file (a shell script in its configuration directory) starts the client.
    case labwc
    /// cage 0.2.0 (Debian 13): started as cage 0.1.4 is; it sends `wl_touch.frame`.
    case cage2
    /// labwc 0.8 as Raspberry Pi OS's desktop login starts it (`labwc-pi`: `labwc -m`): its
    /// system files (`RaspberryPiOS.systemFiles`, raspberrypi-ui-mods' /etc/xdg/labwc) merged
    /// before the user's `~/.config/labwc` (the guide's autostart and rc.xml).
    case raspios

    /// The program that runs (and that the guide's recipe names).
    var program: String {
        switch self {
        case .cage, .cage2: "cage"
        case .sway: "sway"
        case .labwc, .raspios: "labwc"
        }
    }

    /// Whether the mouse-emulation cases run here (gestured's emulated pointer clicking a
    /// client): under cage 0.1.4, sway and labwc. Not under cage 0.2.0, whose whole stacks
    /// are opt-in and where only wev's clicks were seen, by hand (docs/kiosk.md, "Apps
    /// without touch").
    var deliversEmulatedButtons: Bool {
        switch self {
        case .cage2: false
        case .cage, .sway, .labwc, .raspios: true
        }
    }

    /// The command line that starts this compositor running `client` (a shell command),
    /// with `setup`'s own flags (cage) or configuration lines (sway's configuration, labwc's
    /// autostart; written to files in `work` that the compositor's user can read). `home`: the
    /// compositor's user's home (raspios: the user's `~/.config/labwc`).
    func commandLine(running client: String, setup: CompositorSetup, work: String, home: String) throws(CaseFailure) -> [String] {
        switch self {
        case .cage, .cage2:
            return ["cage"] + setup.arguments + ["--", "sh", "-c", client]
        case .sway:
            let config = "\(work)/sway.conf"
            try Self.write(config, (setup.configLines + ["exec \(client)"]).joined(separator: "\n") + "\n")
            return ["sway"] + setup.arguments + ["-c", config]
        case .labwc:
            let directory = "\(work)/labwc"
            try? RegularFile.makeDirectory(path: directory, mode: 0o755)
            _ = try? SystemCall.posixBlocking("chmod", path: directory) { chmod(directory, 0o755) }
            try Self.write("\(directory)/autostart", (setup.configLines + ["(\(client)) &"]).joined(separator: "\n") + "\n")
            try Self.write("\(directory)/rc.xml", Self.labwcConfiguration(fillOutput: setup.fillOutput))
            return ["labwc"] + setup.arguments + ["--config-dir", directory]
        case .raspios:
            try RaspberryPiOS.installSystemFiles()
            var files = setup.homeFiles
            files[".config/labwc/autostart"] = (setup.configLines + ["(\(client)) &"]).joined(separator: "\n") + "\n"
            let (uid, gid) = try KioskRoot.kioskUser()
            for (relative, text) in files.sorted(by: { $0.key < $1.key }) {
                // The user's directories on the way, its own as an operator's would be.
                var directory = home
                for component in relative.split(separator: "/").dropLast() {
                    directory += "/\(component)"
                    try? RegularFile.makeDirectory(path: directory, mode: 0o755)
                    _ = try? SystemCall.posixBlocking("chown", path: directory) { chown(directory, uid, gid) }
                }
                try Self.write("\(home)/\(relative)", text)
            }
            // As labwc-pi runs it; -V (labwc's informational log: which scripts ran, which
            // <touch> entry each device got) is the tier's, for its verdicts.
            return ["labwc", "-m", "-V"] + setup.arguments
        }
    }

    /// labwc's rc.xml for the tier: labwc's defaults (touches reach the client as `wl_touch`,
    /// no mouse emulation, on the only output), and with `fillOutput` every window full screen,
    /// as cage and sway show their one client.
    static func labwcConfiguration(fillOutput: Bool) -> String {
        let rules = """
              <windowRules>
                <windowRule identifier="*">
                  <action name="ToggleFullscreen"/>
                </windowRule>
              </windowRules>

            """
        return "<?xml version=\"1.0\"?>\n<labwc_config>\n\(fillOutput ? rules : "")</labwc_config>\n"
    }

    private static func write(_ path: String, _ text: String) throws(CaseFailure) {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            throw CaseFailure("cannot write \(path)")
        }
        _ = try? SystemCall.posixBlocking("chmod", path: path) { chmod(path, 0o644) }
    }
}

/// What a kiosk recipe adds to a compositor besides its client: command-line flags (cage's
/// `-d`) and configuration lines (sway's `default_border none`, labwc's autostart lines).
struct CompositorSetup: Equatable {
    var arguments: [String] = []
    var configLines: [String] = []
    /// Whether the tier makes the client's window fill the output (labwc: a window rule; cage
    /// and sway show their one client so anyway). Off for the guide's recipes: Chromium's
    /// `--kiosk` makes its window full screen itself.
    var fillOutput = false
    /// Files of the compositor's user, by their path under its home (raspios: the guide's
    /// `.config/labwc/rc.xml`, the tier's `.config/gestured/actions.toml`).
    var homeFiles: [String: String] = [:]

    /// cage's flag that turns its output a quarter clockwise (`-r`; 0.1.4 takes it up to
    /// three times: `-r -r` 180°, `-r -r -r` 270°).
    static let cageQuarterTurn = "-r"

    /// The setup with cage's output turned by `rotation` as well (`cageQuarterTurn` once per
    /// quarter).
    func turningCage(by rotation: Rotation) -> CompositorSetup {
        var turned = self
        turned.arguments += Array(repeating: Self.cageQuarterTurn, count: rotation.rawValue / 90)
        return turned
    }

    /// The turn cage gives its output with these flags (clockwise, a quarter per `-r`).
    var cageRotation: Rotation {
        Rotation(rawValue: arguments.filter { $0 == Self.cageQuarterTurn }.count % 4 * 90) ?? .none
    }
}
