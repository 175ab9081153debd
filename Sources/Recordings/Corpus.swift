#if canImport(FoundationEssentials)
    import FoundationEssentials  // not Foundation: the daemon's resident memory (docs/performance.md)
#else
    import Foundation
#endif

/// The shared corpus of real recordings: `GESTURED_CORPUS` when set, else `shared/corpus`
/// found beside the checkout (`../shared/corpus`) or a few levels further up (worktrees).
/// Used by the replay tests, the benchmarks and the end-to-end driver.
public enum Corpus {
    /// The corpus root, nil when it cannot be found.
    public static let root: String? = {
        let fileManager = FileManager.default
        if let override = ProcessInfo.processInfo.environment["GESTURED_CORPUS"], !override.isEmpty {
            return fileManager.fileExists(atPath: override) ? override : nil
        }
        // #filePath = <package>/Sources/Recordings/Corpus.swift; also try the working directory.
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for start in [package, URL(fileURLWithPath: fileManager.currentDirectoryPath)] {
            var directory = start
            for _ in 0..<5 {
                let candidate = directory.deletingLastPathComponent().appendingPathComponent("shared/corpus").path
                if fileManager.fileExists(atPath: candidate) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }()

    /// Whether the corpus was found.
    public static var isAvailable: Bool { root != nil }

    /// Every file under the corpus, relative to its root, sorted.
    public static let files: [String] = {
        guard let root else { return [] }
        var result: [String] = []
        var folders = [""]
        while let folder = folders.popLast() {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? root : root + "/" + folder)) ?? []
            for name in entries {
                let relative = folder.isEmpty ? name : folder + "/" + name
                var isDirectory = false
                guard FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory) else { continue }
                if isDirectory {
                    folders.append(relative)
                } else {
                    result.append(relative)
                }
            }
        }
        return result.sorted()
    }()

    /// The corpus files of one kind (recordings, descriptions), relative to the root.
    public static func files(of kind: RecordingFileKind) -> [String] {
        files.filter { RecordingFileKind(fileName: String($0.split(separator: "/").last ?? "")) == kind }
    }

    /// The absolute path of a corpus file given relative to the root.
    public static func path(_ relative: String) -> String {
        (root ?? "/nonexistent") + "/" + relative
    }
}
