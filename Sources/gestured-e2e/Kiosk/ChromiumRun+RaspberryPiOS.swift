import EvdevInput
import Foundation
import GestureCore
import GestureTestSupport
import SystemCalls

/// The Chromium cases in Raspberry Pi OS's session as it ships (`CompositorKind.raspios`):
/// labwc started as `labwc -m` with raspberrypi-ui-mods' /etc/xdg/labwc, the guide's
/// Raspberry Pi autostart, `~/.config/labwc/rc.xml` and gestured.toml (docs/kiosk.md,
/// extracted as written), raspi-config's blanking line, and Raspberry Pi's displays
/// (`RaspberryPiOS.panels`) all plugged in at once, each a mouse to labwc by the system
/// rc.xml. Taps run on every panel; the other cases on the first. The labwc verdicts come
/// from labwc's own log (`-V`): which autostart scripts it ran, in which order, and which
/// `<touch>` entry it gave each device.
extension ChromiumRun {
    /// The labwc log line for a device that got a `<touch deviceName=…>` entry.
    static func touchEntryLine(_ name: String) -> String { "found touch configuration for \(name)" }

    func runRaspberryPiOS(_ harness: Harness) {
        harness.run(
            name(
                "labwc -m ran /etc/xdg/labwc/autostart before the user's, and gave each of Raspberry Pi's panels the system rc.xml's touch entry (mouse emulation)"
            )
        ) {
            let log = (try? String(contentsOfFile: compositor.logPath, encoding: .utf8)) ?? ""
            let lines = log.split(separator: "\n").map(String.init)
            let system = lines.firstIndex { $0.contains("run session script /etc/xdg/labwc/autostart") }
            let user = lines.firstIndex { $0.contains("run session script \(compositor.runtimeDirectory)/.config/labwc/autostart") }
            try expect(
                system != nil && user != nil && system! < user!,
                "labwc ran the autostarts \(lines.filter { $0.contains("session script") })")
            for panel in panels {
                try expect(
                    log.contains(Self.touchEntryLine(panel.name)), "labwc gave \(panel.name) no touch entry: \(tail(compositor.logPath))")
            }
        }
        harness.run(
            name(
                "gestured starts with the guide's gestured.toml; each clone carries the guide's clone-name, which gets the guide's <touch> entry"
            ),
            always: true
        ) {
            let guide = try KioskGuide(path: cases.guide)
            try startDaemon(config: try guide.file("raspios gestured.toml"))
            for panel in panels {
                let node = try cloneNodeOf(panel, pumping: page, alongside: subscriber)
                let cloneName = (try? EvdevDevice(path: node).description.name) ?? "(unreadable)"
                try expect(cloneName != panel.name, "the clone of \(panel.name) has the panel's name")
                try expect(
                    recipe.setup.rcXML?.contains("deviceName=\"\(cloneName)\"") == true,
                    "the guide's rc.xml has no <touch> entry for the clone's name \(cloneName)")
                try expect(
                    (try? String(contentsOfFile: compositor.logPath, encoding: .utf8))?.contains(Self.touchEntryLine(cloneName)) == true,
                    "labwc did not give the clone \(cloneName) the user's touch entry: \(tail(compositor.logPath))")
            }
        }
        guard daemon != nil else {
            reportFailures(harness)
            return
        }
        let first = panel!
        var emulated: [String] = []
        for (index, touched) in panels.enumerated() {
            let label = RaspberryPiOS.panels[index].label
            harness.run(name("through gestured, the \(label) (\(touched.name)): taps click where touched")) {
                panel = touched
                defer { panel = first }
                emulated += try tapsClick(at: index == 0 ? tapSpots : Array(tapSpots.prefix(2)))
            }
        }
        harness.run(
            name(
                "no cursor: every pointer and mouse event of the taps came from a touch (labwc sent touches, not emulated pointer events)"
            )
        ) {
            let mice = page.events(since: daemonMark).filter { $0.isInput && $0.kind == "mouse" && $0.name.hasPrefix("pointer") }
            try expect(emulated.isEmpty && mice.isEmpty, "the page got mouse events \(emulated) \(describe(mice))")
        }
        harness.run(name("a one-finger drag scrolls the page (no text selection) and clicks nothing")) {
            try dragScrolls()
            let selected = try page.state(alongside: subscriber).selection ?? ""
            try expect(selected.isEmpty, "the drag selected \(selected)")
        }
        harness.run(name("an exit swipe from the reserved edge gives the page no event and reaches it through gestured-web")) {
            try reservedSwipe()
        }
        harness.run(name("no stuck touch: SIGKILL with a finger down lifts it in the page; a tap after the restart clicks")) {
            try killWithFingerDown()
        }
        harness.run(name("a two-finger pinch leaves the page at scale 1; a subscriber gets the pinch")) { try pinchStaysOutOfPage() }
        harness.run(name("a long press gives the page no event, no menu, no selection; a subscriber gets it")) {
            try longPressStaysOutOfPage()
        }
        harness.run(name(Self.wakeCase(kind))) {
            try blankAndWake(config: try KioskGuide(path: cases.guide).file("raspios gestured.toml"))
        }
        reportFailures(harness)
    }
}
