import Foundation
import GestureProtocol
import GestureTestSupport
import SystemCalls
import Testing

/// Region composition through the configuration file path: the worked examples of
/// docs/configuration.md, taken from the guide itself, written to a file and given to the
/// real `gestured replay --config`, over the bundled demo recording and over a recording
/// written here from the demo's device description.
@Suite struct ComposedReplayTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let demo = repository.appendingPathComponent("demo/demo.events").path

    /// The ```toml block under `### heading` in docs/configuration.md.
    static func guideExample(_ heading: String) throws -> String {
        let guide = try String(contentsOfFile: repository.appendingPathComponent("docs/configuration.md").path, encoding: .utf8)
        guard let section = guide.range(of: "### \(heading)\n"),
            let start = guide.range(of: "```toml\n", range: section.upperBound..<guide.endIndex),
            let end = guide.range(of: "\n```", range: start.upperBound..<guide.endIndex)
        else {
            throw TestFailure(description: "no TOML example under '### \(heading)' in docs/configuration.md")
        }
        return String(guide[start.upperBound..<end.lowerBound])
    }

    /// `gestured replay --config` with `toml`: the gesture lines, decoded.
    static func replay(_ recording: String, toml: String, in directory: TemporaryDirectory) throws -> [GestureMessage] {
        let config = directory.file("gestured-\(toml.hashValue).toml")
        try toml.write(toFile: config, atomically: true, encoding: .utf8)
        let checked = try runToCompletion("gestured", ["check-config", config])
        #expect(checked.status == 0, "\(checked.output)\(checked.error)")
        let run = try runToCompletion("gestured", ["replay", "--config", config, recording])
        #expect(run.status == 0, "\(run.error)")
        return try run.output.split(separator: "\n").map { line in
            try #require(try decodedLine(line).gesture, "gestured replay prints gesture lines only: \(line)")
        }
    }

    /// `gestured check-config` names a pass-through device's keys and a region's app keys.
    @Test func checkConfigNamesWhatTheAppGets() throws {
        let directory = TemporaryDirectory()
        let config = directory.file("app.toml")
        try """
        [[device]]
        match-name = "ELAN*"
        pass-through = true
        app-fingers = 1
        [[device.region]]
        name = "page"
        rect = [0, 0, 1, 1]
        app-long-press = false
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let checked = try runToCompletion("gestured", ["check-config", config])
        #expect(checked.status == 0, "\(checked.error)")
        #expect(
            checked.output.contains("device #1 (name \"ELAN*\"): pass-through (app-fingers 1), 1 region (page: app-long-press false)"),
            "\(checked.output)")
    }

    /// "region gesture.phase" for every line.
    static func summary(_ lines: [GestureMessage], _ filter: (String) -> Bool = { _ in true }) -> [String] {
        lines.compactMap { line in
            let region = line.region ?? "-"
            guard filter(region) else { return nil }
            return "\(region) \(line.gesture).\(line.phase)"
        }
    }

    /// A swipe's `edge` (nil: none, or not a swipe).
    static func edge(_ line: GestureMessage) -> ScreenEdge? {
        if case .swipe(_, let edge, _) = line.details { edge } else { nil }
    }

    @Test func aScrollingPageOfButtons() throws {
        let directory = TemporaryDirectory()
        let lines = try Self.replay(Self.demo, toml: try Self.guideExample("A scrolling page of buttons"), in: directory)
        let summary = Self.summary(lines).filter { !$0.hasSuffix(".changed") }
        // The tap on `play`, with its local coordinates.
        #expect(Array(summary.prefix(3)) == ["play press.began", "play tap.ended", "play press.ended"])
        let tap = try #require(lines.first { $0.gesture == .tap })
        let local = try #require(tap.localLocation)
        #expect(abs(local.x - 0.5) < 0.01 && abs(local.y - 0.5) < 0.01)
        // The double tap on `next` (exclusive): one tap, count 2.
        let nextTaps = lines.filter { $0.region == "next" && $0.gesture == .tap }
        #expect(nextTaps.map(\.count) == [2])
        // The hold on `row`: the page's long press, the row's press cancelled, no tap.
        // The drag from `row`: the page's drag, the row's press cancelled again.
        #expect(
            Self.summary(lines) { $0 == "row" } == ["row press.began", "row press.cancelled", "row press.began", "row press.cancelled"])
        #expect(summary.contains("page long-press.began") && summary.contains("page long-press.ended"))
        let drags = lines.filter { $0.gesture == .drag }
        #expect(!drags.isEmpty && drags.allSatisfy { $0.region == "page" })
        #expect(drags.allSatisfy { $0.drag?.localStartLocation != nil && $0.localLocation != nil })
        // The edge swipe, the two-finger tap and the pinch are the page's.
        let swipe = try #require(lines.first { $0.gesture == .swipe })
        #expect(swipe.region == "page" && Self.edge(swipe) == .right)
        #expect(lines.contains { $0.gesture == .tap && $0.region == "page" && $0.fingers == 2 })
        #expect(lines.contains { $0.gesture == .pinch && $0.region == "page" })
        #expect(!lines.contains { $0.region == nil }, "the page covers the demo's every touch")
        // Each press comes after every other gesture of its touch (the last lift).
        #expect(summary.suffix(2) == ["page pinch.ended", "page press.ended"])
    }

    /// An evemu recording on the demo's device: one finger held at (x, y) for `hold` s,
    /// trembling by one unit (a long press reports that as `changed`).
    static func hold(atX x: Int, y: Int, seconds hold: Double, in directory: TemporaryDirectory) throws -> String {
        let demo = try String(contentsOfFile: Self.demo, encoding: .utf8)
        var lines = demo.split(separator: "\n").filter { !$0.hasPrefix("E:") }.map(String.init)
        var time = 0.5
        func frame(_ events: [(String, String, Int)]) {
            let stamp = String(format: "%.6f", time)
            for (type, code, value) in events { lines.append("E: \(stamp) \(type) \(code) \(value)") }
            lines.append("E: \(stamp) 0000 0000 0")
            time += 0.01
        }
        frame([("0003", "002f", 0), ("0003", "0039", 7), ("0003", "0035", x), ("0003", "0036", y), ("0001", "014a", 1)])
        while time < 0.5 + hold {
            frame([("0003", "002f", 0), ("0003", "0035", x + Int(time * 100) % 2), ("0003", "0036", y)])
        }
        frame([("0003", "002f", 0), ("0003", "0039", -1), ("0001", "014a", 0)])
        let path = directory.file("hold.events")
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aKioskWithAHiddenCornerLongPressOverEverything() throws {
        let directory = TemporaryDirectory()
        let toml = try Self.guideExample("A kiosk with a hidden corner long press over everything")
        // A 2.5 s hold on the help button (in the corner): the corner's long press at 2 s.
        let recording = try Self.hold(atX: 994, y: 562, seconds: 2.5, in: directory)
        let held = try Self.replay(recording, toml: toml, in: directory)
        #expect(
            Self.summary(held).filter { !$0.hasSuffix(".changed") } == [
                "help-button press.began", "operator-corner long-press.began",
                "help-button press.cancelled", "operator-corner long-press.ended",
            ])
        let began = try #require(held.first { $0.gesture == .longPress })
        #expect(began.time.microseconds == 2_500_000, "touch-down at 0.5 s + the corner's 2000 ms")

        // Without `high-priority`, the button's own long press takes the touch at 500 ms.
        let plain = toml.replacingOccurrences(of: "high-priority = [\"long-press\"]\n", with: "")
        #expect(plain != toml)
        let own = try Self.replay(recording, toml: plain, in: directory)
        #expect(
            Self.summary(own).filter { !$0.hasSuffix(".changed") } == [
                "help-button press.began", "help-button long-press.began",
                "help-button long-press.ended", "help-button press.ended",
            ])

        // On the demo, the tap in the corner is the button's; the rest is the top level's.
        let demo = try Self.replay(Self.demo, toml: toml, in: directory)
        #expect(Array(Self.summary(demo).prefix(3)) == ["help-button press.began", "help-button tap.ended", "help-button press.ended"])
        #expect(Self.summary(demo).dropFirst(3).allSatisfy { $0.hasPrefix("- ") })
    }
}
