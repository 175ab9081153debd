import SystemCalls

/// Where gestured-web finds the live view's files when `--web-root` is not given
/// (docs/web.md "The live view"): installed, `share/gestured/web` beside the binary's `bin/`
/// (`/usr/bin` → `/usr/share/gestured/web` for the package, `/usr/local/bin` →
/// `/usr/local/share/gestured/web` for `run.sh --prefix /usr/local`); else, for a binary
/// built in a source checkout (`swift run gestured-web`, `.build/debug/gestured-web`), the
/// `web/` of the nearest directory above it that has `Package.swift` and `web/index.html`.
public struct WebRootLookup: Sendable, Equatable {
    /// The live view's directory, nil when no candidate has an `index.html`.
    public var root: String?
    /// Where it looked, in order, as a person reads it (for the log and the page `GET /`
    /// answers when nothing was found).
    public var searched: [String]

    /// A lookup's result: `root` (nil: nothing found) after looking in `searched`.
    public init(root: String?, searched: [String]) {
        self.root = root
        self.searched = searched
    }

    /// The lookup for the binary at `executable` (an absolute path, `/proc/self/exe`);
    /// `isFile` says whether a path names an existing file.
    public static func locate(executable: String, isFile: (String) -> Bool = RegularFile.exists) -> WebRootLookup {
        let binDirectory = parent(of: executable)
        let prefix = parent(of: binDirectory)
        let installed = (prefix == "/" ? "" : prefix) + "/share/gestured/web"
        let searched = [
            installed,
            "the web/ of a gestured checkout (a directory with Package.swift and web/index.html) at or above \(binDirectory)",
        ]
        if isFile(installed + "/index.html") {
            return WebRootLookup(root: installed, searched: searched)
        }
        var directory = binDirectory
        while true {
            let base = directory == "/" ? "" : directory
            if isFile(base + "/Package.swift") && isFile(base + "/web/index.html") {
                return WebRootLookup(root: base + "/web", searched: searched)
            }
            guard directory != "/" else { break }
            directory = parent(of: directory)
        }
        return WebRootLookup(root: nil, searched: searched)
    }

    /// The directory holding `path` ("/" for a path directly under the root or for "/").
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
