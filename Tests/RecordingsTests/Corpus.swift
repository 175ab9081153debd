import Foundation
import Recordings

/// The shared corpus of real recordings (`../shared/corpus` beside the project; from a
/// worktree it is found further up), or `GESTURED_CORPUS` when set.
enum Corpus {
    static let root: String? = {
        let fileManager = FileManager.default
        if let override = ProcessInfo.processInfo.environment["GESTURED_CORPUS"], !override.isEmpty {
            return fileManager.fileExists(atPath: override) ? override : nil
        }
        // #filePath = <package>/Tests/RecordingsTests/Corpus.swift
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.deletingLastPathComponent().appendingPathComponent("shared/corpus").path
            if fileManager.fileExists(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    static var isAvailable: Bool { root != nil }

    /// Every file under the corpus, relative to its root, sorted.
    static let files: [String] = {
        guard let root, let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        var result: [String] = []
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue {
                result.append(relative)
            }
        }
        return result.sorted()
    }()

    static func files(of kind: RecordingFileKind) -> [String] {
        files.filter { RecordingFileKind(fileName: ($0 as NSString).lastPathComponent) == kind }
    }

    static func path(_ relative: String) -> String {
        (root ?? "/nonexistent") + "/" + relative
    }

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
