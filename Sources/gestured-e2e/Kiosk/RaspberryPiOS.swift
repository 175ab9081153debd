import EvdevInput
import Foundation
import GestureCore
import GestureTestSupport
import Glibc
import Recordings
import SystemCalls

/// What the kiosk tier's Raspberry Pi OS session (`CompositorKind.raspios`) takes from
/// Raspberry Pi OS, in one place: its `/etc/xdg/labwc` files (vm/raspios, from
/// raspberrypi-ui-mods; vm/raspios/README.md names the commit), and the touch controllers of
/// Raspberry Pi's displays as their kernel drivers register them (vm/arm64/panels), named as
/// the Raspberry Pi kernel names them: each name is one of the system rc.xml's `<touch
/// … mouseEmulation="yes"/>` entries.
enum RaspberryPiOS {
    /// The system configuration directory labwc reads first under `-m`.
    static let systemDirectory = "/etc/xdg"
    /// The checkout's copy of Raspberry Pi OS's files, relative to the checkout.
    static let systemFiles = "vm/raspios/etc/xdg"

    /// Makes raspberrypi-ui-mods' files labwc's `/etc/xdg/labwc` (once per boot): the
    /// guest's root is read-only, so the checkout's copy is bind-mounted over `/etc/xdg`
    /// (Debian's root has only `systemd` there).
    static func installSystemFiles() throws(CaseFailure) {
        if RegularFile.anythingExists(path: "\(systemDirectory)/labwc/rc.xml") { return }
        let source = FileManager.default.currentDirectoryPath + "/" + systemFiles
        let log = "/run/raspios-mount.log"
        let pid = try spawn("/usr/bin/mount", ["--bind", source, systemDirectory], logPath: log)
        guard waitForExit(pid, timeout: 30) == 0, RegularFile.anythingExists(path: "\(systemDirectory)/labwc/rc.xml") else {
            throw CaseFailure("cannot put Raspberry Pi OS's labwc files at \(systemDirectory)/labwc: \(tail(log))")
        }
    }

    /// The kiosk user's files, by their path under its home: labwc's own rc.xml (the
    /// guide's), and the default actions file of `gesturectl actions` (the tier's).
    static let userRCXML = ".config/labwc/rc.xml"
    static let userActions = ".config/gestured/actions.toml"

    /// Where the package puts `gesturectl`, and gestured's socket when nothing else is said:
    /// the guide's runner line, `/usr/bin/gesturectl actions &`, names neither of the tier's.
    static let packagedGesturectl = "/usr/bin/gesturectl"
    static let packagedSocket = "/run/gestured/gestured.sock"

    /// The tier's actions file: a long press on the guide's reserved `exit-edge` (which
    /// gives the page nothing of it) types Shift+R, a chord Chromium acts on in no way, into
    /// the page; `keyboard` is the default, `wayland`.
    static let actions = """
        # ~kiosk/.config/gestured/actions.toml (the kiosk tier's)
        [[action]]
        gesture = "long-press"
        region = "exit-edge"
        keys = ["KEY_LEFTSHIFT+KEY_R"]

        """

    /// Makes the guide's runner line run as written (once per boot): links the tier's
    /// `gesturectl` where the package installs it (the Debian 13 root is writable, under a
    /// tmpfs overlay) and the tier's daemon socket at the default path, in `/run`.
    static func installPackagedPaths(gesturectl: String, socket: String) throws(CaseFailure) {
        for (link, target) in [(packagedGesturectl, gesturectl), (packagedSocket, socket)] {
            if (try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == target { continue }
            try? RegularFile.makeDirectory(path: (link as NSString).deletingLastPathComponent, mode: 0o755)
            do {
                try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            } catch {
                throw CaseFailure("cannot link \(link) to \(target): \(error)")
            }
        }
    }

    /// The `gesturectl actions` the guide's runner line started (`packagedGesturectl actions`),
    /// by process id: what the compositor's stop leaves running (the runner outlives its
    /// session, reconnecting to gestured).
    static func runners() -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { pid in
            let argv = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline").map {
                $0.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            }
            return argv == [packagedGesturectl, "actions"]
        }
    }

    /// Stops the runners the guide's line started (SIGTERM; SIGKILL to those left after 10 s).
    static func stopRunners() {
        for pid in runners() { Subprocess.send(SIGTERM, to: pid) }
        let deadline = monotonicMicroseconds() + 10_000_000
        while !runners().isEmpty && monotonicMicroseconds() < deadline { pause(milliseconds: 50) }
        for pid in runners() { Subprocess.send(SIGKILL, to: pid) }
    }

    /// A process's real user id and environment, from /proc.
    static func identity(of pid: pid_t) -> (uid: uid_t?, environment: [String]) {
        let status = FileManager.default.contents(atPath: "/proc/\(pid)/status").map { String(decoding: $0, as: UTF8.self) } ?? ""
        let uid = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }.flatMap {
            $0.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { uid_t($0) }
        }
        let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ").map {
            $0.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        }
        return (uid, environment ?? [])
    }

    /// One display's touch controller: its description file and its name on the Raspberry Pi.
    struct Panel {
        let label: String
        let descriptionFile: String
        let name: String
        /// Axis maxima that differ from the file's (Touch Display 2's portrait panel).
        var maxima: (x: Int32, y: Int32)?
    }

    /// The official 7" display's FT5406 in both name variants (two DSI ports), a third-party
    /// GT911 display, and Touch Display 2 (7": a GT911, 720×1280 portrait): every name one
    /// of rc.xml's `mouseEmulation="yes"` entries.
    static let panels = [
        Panel(label: "7\" display, FT5406 (79)", descriptionFile: "vm/arm64/panels/edt-ft5x06.desc", name: "10-0038 generic ft5x06 (79)"),
        Panel(label: "7\" display, FT5406 (00)", descriptionFile: "vm/arm64/panels/edt-ft5x06.desc", name: "11-0038 generic ft5x06 (00)"),
        Panel(
            label: "GT911 display", descriptionFile: "vm/arm64/panels/goodix-gt911.desc", name: "6-005d Goodix Capacitive TouchScreen"),
        Panel(
            label: "Touch Display 2 7\"", descriptionFile: "vm/arm64/panels/goodix-gt911.desc",
            name: "4-005d Goodix Capacitive TouchScreen", maxima: (719, 1279)),
    ]

    /// Plugs `panel` in (uinput).
    static func plug(_ panel: Panel) throws(CaseFailure) -> TouchPanel {
        var description: DeviceDescription
        do {
            description = try RecordingReader.readDevice(path: panel.descriptionFile)
        } catch {
            throw CaseFailure("cannot read \(panel.descriptionFile): \(error)")
        }
        description.name = panel.name
        if let maxima = panel.maxima {
            for (codes, maximum) in [([ABS.x, ABS.mtPositionX], maxima.x), ([ABS.y, ABS.mtPositionY], maxima.y)] {
                for code in codes { description.absInfo[code]?.maximum = maximum }
            }
        }
        return try TouchPanel(description)
    }

    /// A USB mouse (two axes, a wheel, three buttons), as a kiosk's maintainer may leave
    /// plugged in: udev tags it `ID_INPUT_MOUSE`, and labwc then offers apps a pointer.
    static func plugMouse() throws(CaseFailure) -> TouchPanel {
        let mouse = DeviceDescription(
            name: "Logitech USB Optical Mouse", bus: 0x03, vendor: 0x046d, product: 0xc077, version: 0x0111,
            codes: [EV.key: [BTN.left, BTN.left + 1, BTN.left + 2], EV.rel: [0, 1, 8]])
        return try TouchPanel(mouse)
    }
}
