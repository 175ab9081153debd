import GestureCore
import GestureProtocol
import GestureTestSupport
import Recordings
import Testing

/// Every contact's duration in a recording, as the pipeline's tracker presents it: from the
/// frame it began in to the frame it lifted in (0: began and lifted in one frame).
struct ContactDurations: GestureSink {
    var began: [UInt32: Timestamp] = [:]
    /// Duration of each contact that lifted (cancelled ones are left out).
    var durations: [TimeSpan] = []
    var lastID: UInt64 = 0

    mutating func nextGestureID() -> UInt64 {
        lastID += 1
        return lastID
    }

    mutating func emit(_ event: GestureEvent) {}

    mutating func frameMade(_ frame: TouchFrame) {
        for contact in frame.contacts {
            switch contact.phase {
            case .began: began[contact.id] = frame.time
            case .ended: durations.append(frame.time - (began.removeValue(forKey: contact.id) ?? frame.time))
            case .cancelled: began[contact.id] = nil
            case .moved: break
            }
        }
    }

    static func of(_ recording: Recording) -> [TimeSpan] {
        var sink = ContactDurations()
        Replayer(configuration: Configuration()).replay(recording, into: &sink)
        return sink.durations
    }
}

/// The ghost rules (`shortest-contact`, `phantom = "suppress"`) against every real recording:
/// the limit is below every contact a person made, and no tap, press or drag is lost.
@Suite("Ghost rules over the whole corpus", .enabled(if: Corpus.isAvailable, "corpus not found: set GESTURED_CORPUS"))
struct GhostCorpusTests {
    /// The largest `shortest-contact` the configuration accepts, and phantom suppression.
    static let ghostRules: Configuration = {
        var configuration = Configuration()
        configuration.touch.shortestContact = TouchHygieneSettings.largestShortestContact
        configuration.touch.phantom = .suppress
        return configuration
    }()

    /// The recording whose timestamps are not real time: its tap's three frames span 53 µs
    /// (it was captured from a replay), so its 38 µs contact is shorter than any limit.
    static let compressedTap = "evemu-devices/tablets/eGalax_eMPIA Technology Inc. PCAP MultiTouch Controller.tap.events"

    /// What the ghost rules change in the corpus, and why: nothing a person did.
    static let knownChanges: [String: [String]] = [
        // The compressed 38 µs tap is shorter than the limit.
        compressedTap: [],
        // Fragments that end 0 and 200 µs after a touch-down, the finger still down: the
        // recording ends while the touch is held, so the press that was only ever
        // cancelled at the end is not shown at all.
        "xorg-integration-tests/tablets/N-Trig-MultiTouch.touch_1_begin.events": [],
        "xorg-integration-tests/tablets/N-Trig-MultiTouch.touch_1_update.events": [],
    ]

    /// The measurement behind `shortest-contact`'s largest value: the corpus' shortest real
    /// contacts last one frame of a 120–125 Hz panel (8.0 ms and more). The largest value is
    /// an eighth of that; at 4 ms a two-finger drumroll already loses a long press (a touch
    /// held while the other finger lifts).
    @Test func theLargestLimitIsFarBelowEveryRealContactOfTheCorpus() throws {
        var all: [(TimeSpan, String)] = []
        for relative in Corpus.files(of: .recording) {
            for recording in try RecordingReader.read(path: Corpus.path(relative)) {
                all += ContactDurations.of(recording).map { ($0, relative) }
            }
        }
        all.sort { $0.0 < $1.0 }
        #expect(all.count > 800)
        #expect(all.first?.1 == Self.compressedTap)
        let real = all.filter { $0.1 != Self.compressedTap }
        let shortest = try #require(real.first)
        #expect(shortest.0 >= .milliseconds(8), "\(real.prefix(5))")
        let limit = TouchHygieneSettings.largestShortestContact
        #expect(limit.microseconds * 8 <= shortest.0.microseconds)
        // No contact of the corpus begins and lifts in one frame.
        #expect(all.allSatisfy { $0.0 > .zero })
    }

    /// With the ghost rules on, every recording gives the same taps, long presses, drags,
    /// swipes, pinches and rotations as with the defaults, but for `knownChanges`.
    @Test("the ghost rules lose no real gesture", arguments: Corpus.files(of: .recording))
    func theGhostRulesLoseNoRealGesture(_ relative: String) throws {
        let plain = Replayer(configuration: Configuration())
        let ghostRules = Replayer(configuration: Self.ghostRules)
        for recording in try RecordingReader.read(path: Corpus.path(relative)) {
            let expected = Self.knownChanges[relative] ?? GestureSummary.of(plain.gestures(of: recording))
            let filtered = ghostRules.gestures(of: recording)
            #expect(GestureSummary.of(filtered) == expected, "\(relative)")
            #expect(GestureStreamValidator.violations(in: filtered).isEmpty, "\(relative)")
        }
    }
}
