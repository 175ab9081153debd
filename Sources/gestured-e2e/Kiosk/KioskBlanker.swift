/// What blanks a kiosk's screen after a time without a touch, and brings it back, in the
/// wake case (`ChromiumRun.blankAndWake`), each as docs/kiosk.md names it: swayidle (its
/// `resume` runs when the compositor's idle notifier reports activity) and gestured's own
/// idle actions (`[daemon] idle-timeout` → the `activity` lines → `gesturectl actions`
/// running the `idle` and `active` commands).
struct KioskBlanker {
    /// A program the kiosk's configuration starts.
    enum Program {
        /// swayidle with these `timeout` and `resume` commands (shell words, as in the guide).
        case swayidle(off: String, on: String)
        /// `gesturectl actions` with an `idle` action running `off` and an `active` one
        /// running `on` (docs/actions.md, recipe 3).
        case gesturedActions(off: [String], on: [String])
    }

    /// In the case's name: what blanks.
    let title: String
    let programs: [Program]
    /// Whether the output really goes dark (sway's `dpms`, or the kernel's DRM state, say
    /// so). Otherwise nothing can switch the compositor's output off, and every command
    /// only records in the marks file that it ran (`Mark`).
    let darkens: Bool
    /// gestured runs where sysfs shows no DRM connector (a mount namespace of its own with
    /// an empty `/sys/class/drm`): the display's power cannot be read, and only gestured's
    /// own idle timeout arms wake-swallow.
    let displayUnreadable: Bool
    /// Whether the panel ghosts as a Touch Display 2 does (`PanelGhost`) while the blanker
    /// waits: the output must go off all the same, and a ghost on the dark screen must
    /// leave it dark. Only for a blanker that darkens.
    var ghosts = false

    /// The blanker's timeout: with ghosts, longer than their period, so that one ghost that
    /// reached the compositor would keep the screen on for good; otherwise short for the
    /// case's time, and long enough for the tap after the wake and its check on a busy host.
    var idleSeconds: Int { ghosts ? 20 : 10 }

    /// Whether gestured's own idle timer is on (an `activity` subscriber needs it).
    var usesIdleTimeout: Bool {
        programs.contains { if case .gesturedActions = $0 { true } else { false } }
    }

    /// The lines a recording blanker writes to the marks file, one per command run.
    enum Mark: String {
        case swayidleOff = "swayidle timeout"
        case swayidleOn = "swayidle resume"
        case actionsOff = "actions idle"
        case actionsOn = "actions active"
    }

    /// The marks each off and on command of this blanker writes (empty when it darkens).
    var offMarks: [Mark] { darkens ? [] : programs.map { if case .swayidle = $0 { Mark.swayidleOff } else { Mark.actionsOff } } }
    var onMarks: [Mark] { darkens ? [] : programs.map { if case .swayidle = $0 { Mark.swayidleOn } else { Mark.actionsOn } } }

    /// swayidle's line with `seconds` as its timeout: the guide's form, a shell command.
    static func swayidleLine(off: String, on: String, seconds: Int) -> String {
        "swayidle -w timeout \(seconds) '\(off)' resume '\(on)'"
    }

    /// The blankers the wake case runs under `kind` with its output on `output`: under
    /// sway the guide's swayidle line (sway's own `dpms`); under labwc raspi-config's line
    /// (`wlopm`, through wlr-output-power-management) and gestured's own idle actions
    /// running `wlopm` (docs/actions.md's recipe), each on the DRM output. cage (0.1.4 and
    /// 0.2.0) implements no wlr-output-power-management and runs on the headless output:
    /// nothing a kiosk starts can switch its output off, so swayidle (through cage's idle
    /// notifier) and gestured's idle actions there record that their commands ran, with a
    /// display gestured cannot read.
    static func blankers(for kind: CompositorKind, output: KioskStack.Output, marks: String) -> [KioskBlanker] {
        switch (kind, output) {
        case (.sway, .drm):
            return [
                KioskBlanker(
                    title: "swayidle with sway's dpms",
                    programs: [.swayidle(off: "swaymsg \"output * dpms off\"", on: "swaymsg \"output * dpms on\"")], darkens: true,
                    displayUnreadable: false, ghosts: true)
            ]
        case (.labwc, .drm):
            return [
                KioskBlanker(
                    title: "raspi-config's swayidle and wlopm line", programs: [.swayidle(off: "wlopm --off \\*", on: "wlopm --on \\*")],
                    darkens: true, displayUnreadable: false, ghosts: true),
                KioskBlanker(
                    title: "gestured's own idle actions running wlopm",
                    programs: [.gesturedActions(off: ["wlopm", "--off", "*"], on: ["wlopm", "--on", "*"])], darkens: true,
                    displayUnreadable: false),
            ]
        case (.raspios, .drm):
            // The Raspberry Pi OS session: raspi-config's line, as that lane's guide sets it up.
            return [
                KioskBlanker(
                    title: "raspi-config's swayidle and wlopm line", programs: [.swayidle(off: "wlopm --off \\*", on: "wlopm --on \\*")],
                    darkens: true, displayUnreadable: false)
            ]
        case (.cage, .headless), (.cage2, .headless):
            func record(_ mark: Mark) -> String { "echo \(mark.rawValue) >> \(marks)" }
            return [
                KioskBlanker(
                    title: "swayidle and gestured's own idle actions, recording; the display unreadable",
                    programs: [
                        .swayidle(off: record(.swayidleOff), on: record(.swayidleOn)),
                        .gesturedActions(off: ["/bin/sh", "-c", record(.actionsOff)], on: ["/bin/sh", "-c", record(.actionsOn)]),
                    ], darkens: false, displayUnreadable: true)
            ]
        default:
            return []
        }
    }
}
