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

    /// The measurement behind `shortest-contact`'s limit: the shortest contacts of the
    /// corpus, all of them real. The limit the configuration accepts must stay below them.
    @Test func theLimitIsBelowEveryRealContactOfTheCorpus() throws {
        var all: [(TimeSpan, String)] = []
        for relative in Corpus.files(of: .recording) {
            for recording in try RecordingReader.read(path: Corpus.path(relative)) {
                all += ContactDurations.of(recording).map { ($0, relative) }
            }
        }
        all.sort { $0.0 < $1.0 }
        let shortest = all.prefix(12).map { "\($0.0.milliseconds) ms \($0.1)" }
        print("corpus: \(all.count) contacts; shortest:\n" + shortest.joined(separator: "\n"))
        #expect(all.count > 100)
        let limit = TouchHygieneSettings.largestShortestContact
        #expect(all.allSatisfy { $0.0 >= limit }, "\(shortest)")
    }

    /// With the ghost rules on, every recording gives the same taps, long presses, drags,
    /// swipes, pinches and rotations as with the defaults.
    @Test("the ghost rules lose no real gesture", arguments: Corpus.files(of: .recording))
    func theGhostRulesLoseNoRealGesture(_ relative: String) throws {
        let plain = Replayer(configuration: Configuration())
        let ghostRules = Replayer(configuration: Self.ghostRules)
        for recording in try RecordingReader.read(path: Corpus.path(relative)) {
            let expected = GestureSummary.of(plain.gestures(of: recording))
            let filtered = ghostRules.gestures(of: recording)
            #expect(GestureSummary.of(filtered) == expected, "\(relative)")
            #expect(GestureStreamValidator.violations(in: filtered).isEmpty, "\(relative)")
        }
    }
}
