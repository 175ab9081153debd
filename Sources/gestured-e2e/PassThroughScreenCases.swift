import EvdevInput
import GestureCore
import GestureTestSupport
import Glibc
import SystemCalls

/// `clone-orientation = "screen"` against a daemon of its own: a reader of the clone's node
/// (the driver's own evdev reader, as an app that reads the touchscreen itself) must see
/// each touch at its screen point and the screen's axes, for every rotation; a reload that
/// changes the orientation with a finger down must lift that finger on the old clone and
/// leave nothing down.
extension PassThroughCases {
    static let screenDeviceName = "e2e pass-through screen ELAN Touchscreen"

    /// The configuration: the reserved top edge of `config()` and the clone's orientation.
    static func screenConfig(rotation: Rotation?) -> String {
        config(deviceKeys: rotation.map(screenKeys) ?? [])
    }

    /// The `[[device]]` keys of a panel turned by `rotation` whose clone reports in screen
    /// orientation.
    static func screenKeys(_ rotation: Rotation) -> [String] {
        ["rotation = \(rotation.rawValue)", "clone-orientation = \"screen\""]
    }

    /// Where a panel point is on a screen-oriented clone's axes, worked out in whole units
    /// (the panel's ranges, mirrored and exchanged as the mounting says) rather than through
    /// the daemon's transform.
    static func screenPoint(x: Int32, y: Int32, panel: DeviceDescription, rotation: Rotation) -> (x: Int32, y: Int32) {
        let panelX = panel.absInfo[ABS.mtPositionX] ?? AbsInfo(minimum: 0, maximum: 0)
        let panelY = panel.absInfo[ABS.mtPositionY] ?? AbsInfo(minimum: 0, maximum: 0)
        let mirroredX = panelX.minimum + panelX.maximum - x
        let mirroredY = panelY.minimum + panelY.maximum - y
        switch rotation {
        case .none: return (x, y)
        case .quarter: return (mirroredY, x)
        case .half: return (mirroredX, mirroredY)
        case .threeQuarters: return (y, mirroredX)
        }
    }

    func screenOrientation(_ harness: Harness) {
        let prefix = "pass-through: screen-oriented clone"
        guard harness.wants(prefix) else { return }
        var started: (panel: TouchPanel, daemon: DaemonProcess, subscriber: Subscriber, clone: String, configPath: String)?
        harness.run("\(prefix): the daemon passes the panel through") {
            started = try start(config: Self.screenConfig(rotation: nil), files: "pass-through-screen", deviceName: Self.screenDeviceName)
        }
        guard let started else { return }
        let (panel, daemon, _, _, configPath) = started
        var clone = started.clone
        var rotation: Rotation?
        /// Reloads with `wanted` (nil: the panel's orientation) and waits for the clone that
        /// replaces the current one.
        func reload(to wanted: Rotation?) throws {
            guard wanted != rotation else { return }
            try writeConfig(Self.screenConfig(rotation: wanted), to: configPath)
            daemon.signal(SIGHUP)
            try awaitNewClone("the reload to \(wanted.map { "\($0.rawValue)°" } ?? "panel")")
            rotation = wanted
        }
        /// Waits for a clone of the panel other than the current one (10 s at most).
        func awaitNewClone(_ after: String) throws {
            let previous = clone
            let deadline = monotonicMicroseconds() + 10_000_000
            repeat {
                pause(milliseconds: 50)
                clone = (try? findClone(of: panel.devnode)) ?? previous
            } while clone == previous && monotonicMicroseconds() < deadline
            try expect(clone != previous, "no new clone 10 s after \(after)")
        }
        var trackingID: Int32 = 100
        /// One finger down in slot 0 at panel units (`x`, `y`), with the kernel's
        /// single-touch emulation, as one frame; each touch with a new tracking id.
        func touch(x: Int32, y: Int32) -> [InputEvent] {
            trackingID += 1
            return [
                (EV.abs, ABS.mtSlot, 0), (EV.abs, ABS.mtTrackingID, trackingID), (EV.abs, ABS.mtPositionX, x),
                (EV.abs, ABS.mtPositionY, y), (EV.key, BTN.touch, 1), (EV.abs, ABS.x, x), (EV.abs, ABS.y, y), (EV.syn, SYN.report, 0),
            ].map { InputEvent(time: .zero, type: $0.0, code: $0.1, value: $0.2) }
        }
        let writer = TouchFrameWriter(panel.description)
        // Inside the screen, below the reserved top tenth whatever the rotation.
        let points = [(0.2, 0.7), (0.85, 0.15)].map { (writer.axis(ABS.mtPositionX, $0.0), writer.axis(ABS.mtPositionY, $0.1)) }

        for wanted in Rotation.allCases {
            harness.run("\(prefix): at \(wanted.rawValue)° a reader of the clone sees each touch at its screen point, on the screen's axes")
            {
                try reload(to: wanted)
                let description = try EvdevNode.description(clone)
                let swapped = wanted.isQuarterTurn
                for (x, y) in [(ABS.mtPositionX, ABS.mtPositionY), (ABS.x, ABS.y)] {
                    let wantX = panel.description.absInfo[swapped ? y : x]
                    let wantY = panel.description.absInfo[swapped ? x : y]
                    for (code, want) in [(x, wantX), (y, wantY)] {
                        let got = description.absInfo[code]
                        try expect(
                            got?.minimum == want?.minimum && got?.maximum == want?.maximum && got?.resolution == want?.resolution,
                            "axis \(code) of the clone: \(String(describing: got)), the screen's is \(String(describing: want))")
                    }
                }
                let reader = try EvdevNode(clone)
                for (x, y) in points {
                    try panel.write(touch(x: x, y: y))
                    try reader.read(forMilliseconds: 10_000) { $0.slots.count == 1 }
                    let expected = Self.screenPoint(x: x, y: y, panel: panel.description, rotation: wanted)
                    let touch = reader.state.slots.values.first
                    try expect(
                        touch?.x == expected.x && touch?.y == expected.y,
                        "panel (\(x), \(y)) reached the clone at \(touch?.description ?? "nothing"), the screen point is (\(expected.x), \(expected.y))"
                    )
                    try expect(
                        reader.state.axes[ABS.x] == expected.x && reader.state.axes[ABS.y] == expected.y,
                        "the single-touch position on the clone is (\(reader.state.axes[ABS.x] ?? -1), \(reader.state.axes[ABS.y] ?? -1))")
                    try panel.write(Self.lift)
                    try reader.read(forMilliseconds: 10_000) { $0.slots.isEmpty }
                    try expect(reader.state.slots.isEmpty, "the touch did not lift on the clone: \(reader.state.slots)")
                }
            }
        }

        harness.run("\(prefix): a reload to the panel orientation with a finger down lifts it on the old clone; nothing stays down") {
            try reload(to: .quarter)
            let (x, y) = points[0]
            try reloadWithFingerDown(clone: clone, config: Self.screenConfig(rotation: nil), configPath: configPath, daemon: daemon) {
                try panel.write(touch(x: x, y: y))
            }
            // The finger still down is the compositor's until it lifts; then the new clone.
            try panel.write(Self.lift)
            rotation = nil
            try awaitNewClone("the finger lifted")
            let description = try EvdevNode.description(clone)
            try expect(
                description.absInfo[ABS.mtPositionX]?.maximum == panel.description.absInfo[ABS.mtPositionX]?.maximum,
                "the new clone's x axis is not the panel's: \(String(describing: description.absInfo[ABS.mtPositionX]))")
            let fresh = try EvdevNode(clone)
            try panel.write(touch(x: x, y: y))
            try fresh.read(forMilliseconds: 10_000) { $0.slots.count == 1 }
            let touch = fresh.state.slots.values.first
            try expect(touch?.x == x && touch?.y == y, "the new clone shows \(touch?.description ?? "nothing") for panel (\(x), \(y))")
            try panel.write(Self.lift)
            try fresh.read(forMilliseconds: 10_000) { $0.slots.isEmpty }
            try expect(fresh.state.slots.isEmpty && fresh.state.keysDown.isEmpty, "left down on the new clone: \(fresh.state.slots)")
        }
        if harness.failures.contains(where: { $0.hasPrefix(prefix) }) { say("gestured log: \(tail(daemon.logPath, lines: 30))") }
        panel.unplug()
        daemon.stop()
    }

    /// The finger of `touch(x:y:)` lifted.
    static let lift = [(EV.abs, ABS.mtSlot, 0), (EV.abs, ABS.mtTrackingID, -1), (EV.key, BTN.touch, 0), (EV.syn, SYN.report, 0)].map {
        InputEvent(time: .zero, type: $0.0, code: $0.1, value: Int32($0.2))
    }
}
