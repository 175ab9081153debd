import Foundation
import Recordings

extension Corpus {
    /// Reads one corpus file (relative path), expecting exactly one recording.
    static func single(_ relative: String) throws -> Recording {
        let recordings = try RecordingReader.read(path: path(relative))
        guard recordings.count == 1 else { throw CorpusTestError.unexpectedCount(recordings.count) }
        return recordings[0]
    }
}

enum CorpusTestError: Error {
    case unexpectedCount(Int)
}
