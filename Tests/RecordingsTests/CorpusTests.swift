import Foundation
import GestureCore
import Recordings
import Testing

@Suite("Every corpus file", .enabled(if: Corpus.isAvailable, "corpus not found: set GESTURED_CORPUS"))
struct CorpusTests {
    /// Named like a recording but holding only a description (no `E:` lines).
    static let descriptionOnly: Set<String> = ["evemu-devices/tablets/Wacom Cintiq 22HDT Finger.events"]

    @Test("the corpus holds the recordings the README promises")
    func corpusIsComplete() {
        #expect(Corpus.files(of: .recording).count >= 180)
        #expect(Corpus.files(of: .description).count >= 40)
    }

    @Test("every recording parses, with events and a device that has axes", arguments: Corpus.files(of: .recording))
    func recordingParses(_ relative: String) throws {
        let recordings = try RecordingReader.read(path: Corpus.path(relative))
        #expect(!recordings.isEmpty)
        for recording in recordings {
            #expect(!recording.device.absInfo.isEmpty, "\(relative): device without axes")
            if Self.descriptionOnly.contains(relative) {
                #expect(recording.events.isEmpty)
                continue
            }
            #expect(!recording.events.isEmpty, "\(relative): no events")
            #expect(recording.events.contains { $0.type == EV.syn && $0.code == SYN.report }, "\(relative): no SYN_REPORT")
            #expect(recording.deviceInferred == (recording.format == .getevent))
        }
    }

    @Test("every description file parses as a description", arguments: Corpus.files(of: .description))
    func descriptionParses(_ relative: String) throws {
        let device = try RecordingReader.readDevice(path: Corpus.path(relative))
        #expect(!device.name.isEmpty)
        #expect(!device.absInfo.isEmpty)
        #expect(device.absInfo.values.allSatisfy { $0.minimum <= $0.maximum })
        let alone = try RecordingReader.read(path: Corpus.path(relative))
        #expect(alone.count == 1)
        #expect(alone.first?.events.isEmpty == true)
        #expect(alone.first?.device == device)
    }

    /// Prints the per-file table (format, device, events, frames, duration) for the report.
    @Test("summaries of the whole corpus")
    func summaries() throws {
        var lines: [String] = []
        for relative in Corpus.files(of: .recording) {
            for recording in try RecordingReader.read(path: Corpus.path(relative)) {
                let summary = recording.summary
                #expect(summary.eventCount == recording.events.count)
                lines.append("\(summary)\t\(recording.notes.joined(separator: "; "))")
            }
        }
        if ProcessInfo.processInfo.environment["GESTURED_PRINT_SUMMARIES"] != nil {
            print(lines.joined(separator: "\n"))
        }
        #expect(lines.count == Corpus.files(of: .recording).count)
    }
}
