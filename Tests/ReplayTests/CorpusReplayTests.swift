import Foundation
import GestureCore
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
                let limit = last + 1_000_000
                #expect(events.allSatisfy { $0.time >= first && $0.time <= limit }, "\(relative): event time outside the recording")
            }
            #expect(replayer.gestures(of: recording) == events, "\(relative): replay is not deterministic")
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
