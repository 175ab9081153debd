import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import Recordings
import Testing

/// CI runs with `../shared/corpus` beside the checkout: there, a missing corpus is a failure,
/// not a quiet skip of every corpus test.
@Test(.enabled(if: ProcessInfo.processInfo.environment["CI"] != nil))
func corpusIsPresentInCI() {
    #expect(Corpus.isAvailable, "CI must have ../shared/corpus (or GESTURED_CORPUS)")
}

@Suite("Replay over the whole corpus", .enabled(if: Corpus.isAvailable, "corpus not found: set GESTURED_CORPUS"))
struct CorpusReplayTests {
    @Test("every recording replays and keeps the protocol's promises", arguments: Corpus.files(of: .recording))
    func replaysCleanly(_ relative: String) throws {
        let replayer = Replayer(configuration: Configuration())
        for recording in try RecordingReader.read(path: Corpus.path(relative)) {
            let events = replayer.gestures(of: recording)
            let violations = GestureStreamValidator.violations(in: events)
            #expect(violations.isEmpty, "\(relative): \(violations.prefix(3))")
            #expect(pressesNeverCoverBothTapAndLongPress(events), "\(relative): one touch became a tap and a long press")
            if let first = recording.events.first?.time, let last = recording.events.map(\.time).max() {
                // Every event is stamped with an input's time or a timer deadline inside the recording.
                let limit = last + TimeSpan.seconds(1)
                #expect(events.allSatisfy { $0.time >= first && $0.time <= limit }, "\(relative): event time outside the recording")
            }
            #expect(replayer.gestures(of: recording) == events, "\(relative): replay is not deterministic")
        }
    }

    /// Touch hygiene switched on with a filter no recording triggers (stuck-after of a
    /// week) runs every frame and deadline through `TouchHygiene` instead of bypassing it:
    /// the gestures must be exactly those of the defaults.
    @Test("touch hygiene that drops nothing changes nothing", arguments: Corpus.files(of: .recording))
    func touchHygieneThatDropsNothingChangesNothing(_ relative: String) throws {
        var hygiene = Configuration()
        hygiene.touch.stuckAfter = .seconds(604_800)
        let plain = Replayer(configuration: Configuration())
        let filtered = Replayer(configuration: hygiene)
        for recording in try RecordingReader.read(path: Corpus.path(relative)) {
            #expect(filtered.gestures(of: recording) == plain.gestures(of: recording), "\(relative)")
        }
    }

    /// The two worked examples of docs/gestures.md at once: a scrolling page of buttons, a
    /// hidden corner whose long press wins over everything, a panel whose taps fire beside
    /// its buttons' (`simultaneous`) and a dead zone that keeps its touches.
    static let composed: Configuration = {
        var button = GestureSettings()
        button.enabled = [.press, .tap]
        var corner = GestureSettings()
        corner.enabled = [.longPress]
        corner.longPress.minimumDuration = 1500
        var deadZone = GestureSettings()
        deadZone.enabled = [.press]
        var regions = [
            Region(name: "page", rect: .unit),
            Region(name: "panel", rect: Rect(x: 0.5, y: 0.5, width: 0.45, height: 0.45), simultaneous: [.tap]),
            Region(name: "corner", rect: Rect(x: 0, y: 0, width: 0.25, height: 0.25), settings: corner, highPriority: [.longPress]),
            Region(name: "dead-zone", rect: Rect(x: 0.9, y: 0, width: 0.1, height: 0.1), settings: deadZone, fallThrough: false),
        ]
        for row in 0..<3 {
            for column in 0..<4 {
                regions.append(
                    Region(
                        name: "button-\(row)-\(column)",
                        rect: Rect(x: 0.05 + Double(column) * 0.23, y: 0.1 + Double(row) * 0.28, width: 0.2, height: 0.2),
                        settings: button))
            }
        }
        var configuration = Configuration()
        configuration.engine = EngineConfiguration(regions: regions)
        return configuration
    }()

    @Test("every recording replays with nested regions and keeps the promises", arguments: Corpus.files(of: .recording))
    func replaysWithRegions(_ relative: String) throws {
        let replayer = Replayer(configuration: Self.composed)
        for recording in try RecordingReader.read(path: Corpus.path(relative)) {
            let events = replayer.gestures(of: recording)
            // Every touch gets a press: the top level and the dead zone enable it.
            let violations = GestureStreamValidator.violations(in: events, requirePress: true)
            #expect(violations.isEmpty, "\(relative): \(violations.prefix(3))")
            for event in events {
                let region = Self.composed.engine.regions.first { $0.name == event.region }
                #expect(event.regionRect == region?.rect, "\(relative): local coordinates of \(event.region ?? "-")")
            }
            #expect(replayer.gestures(of: recording) == events, "\(relative): replay is not deterministic")
        }
    }

    /// The composed replay is not vacuous: across the corpus, buttons tap and lose touches to
    /// the page's drags, the page drags and long-presses, the panel's simultaneous taps fire.
    @Test func regionsOfTheComposedLayoutAllTakePart() throws {
        var seen: [String: Int] = [:]
        let replayer = Replayer(configuration: Self.composed)
        for relative in Corpus.files(of: .recording) {
            for recording in try RecordingReader.read(path: Corpus.path(relative)) {
                for event in replayer.gestures(of: recording) {
                    let region = event.region.map { $0.hasPrefix("button-") ? "button" : $0 } ?? "-"
                    seen["\(region) \(event.kind.rawValue) \(event.phase.rawValue)", default: 0] += 1
                }
            }
        }
        for key in [
            "button tap ended", "button press cancelled", "page drag began", "page long-press began", "panel tap ended", "page swipe ended",
        ] {
            #expect(seen[key, default: 0] > 0, "\(key) never happened: \(seen.keys.sorted())")
        }
    }

    @Test("wire output is byte-identical across runs and one line per event")
    func wireOutputIsDeterministic() throws {
        let relative = "evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events"
        let recording = try #require(try RecordingReader.read(path: Corpus.path(relative)).first)
        func lines() -> [UInt8] {
            var replayer = Replayer(configuration: Configuration())
            var bytes: [UInt8] = []
            replayer.replay(recording) { bytes += $0 }
            return bytes
        }
        let first = lines()
        #expect(first == lines())
        let text = String(decoding: first, as: UTF8.self)
        let count = Replayer(configuration: Configuration()).gestures(of: recording).count
        #expect(text.split(separator: "\n").count == count)
        for line in text.split(separator: "\n") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "not JSON: \(line)")
        }
    }

    /// Every line `gestured replay` writes for the corpus, with and without regions (so
    /// `region` and `localLocation` are strings and points too), is read back by the strict
    /// decoder and written again to the same bytes: the encoder and the decoder follow one
    /// declaration of each message (`MessageFields.swift`), on real streams and not only on
    /// random ones (`RoundTripTests`). The byte-for-byte comparison with the encoder before
    /// a change is `engine-profile dump` (docs/performance.md).
    @Test("every wire line of the corpus decodes and encodes back to its bytes", arguments: Corpus.files(of: .recording))
    func wireLinesRoundTrip(_ relative: String) throws {
        for recording in try RecordingReader.read(path: Corpus.path(relative)) {
            for configuration in [Configuration(), Self.composed] {
                var replayer = Replayer(configuration: configuration)
                var bytes: [UInt8] = []
                replayer.replay(recording) { bytes += $0 }
                for line in bytes.split(separator: UInt8(ascii: "\n")) {
                    let message = try WireDecoder.message(line)
                    guard case .gesture = message else {
                        Issue.record("\(relative): not a gesture line: \(String(decoding: line, as: UTF8.self))")
                        continue
                    }
                    #expect(WireEncoder.encode(message).dropLast() == line, "\(relative): \(String(decoding: line, as: UTF8.self))")
                }
            }
        }
    }

    /// Within one press (touch-down to last lift, no regions configured), tap and long press
    /// exclude each other.
    private func pressesNeverCoverBothTapAndLongPress(_ events: [GestureEvent]) -> Bool {
        var tap = false
        var longPress = false
        for event in events {
            switch (event.kind, event.phase) {
            case (.press, .began):
                tap = false
                longPress = false
            case (.tap, _): tap = true
            case (.longPress, .began): longPress = true
            default: break
            }
            if tap && longPress { return false }
        }
        return true
    }
}
