import Glibc
import SystemCalls
import SystemPackage

/// One `eventN` node and the stable links udev made for it.
public struct DeviceNode: Sendable, Hashable {
    /// The node, e.g. `/dev/input/event3`.
    public var path: String
    /// N of `eventN`.
    public var number: Int
    /// `/dev/input/by-id/…` and `/dev/input/by-path/…` symlinks resolving to the node, sorted.
    public var links: [String]

    public init(path: String, number: Int, links: [String] = []) {
        self.path = path
        self.number = number
        self.links = links
    }

    /// The node and every link: what a config `path = …` may name.
    public var allPaths: [String] { [path] + links }
}

/// What a scan of the input directory found.
public enum DeviceScan: Sendable, Hashable {
    /// The directory does not exist (no input devices yet, or no devtmpfs in a container).
    case noInputDirectory(String)
    /// The `eventN` nodes, sorted by N.
    case nodes([DeviceNode])
}

/// Lists evdev nodes without udev: `eventN` entries of `/dev/input` and their stable links.
public enum DeviceDiscovery {
    public static let inputDirectory = "/dev/input"

    /// Lists `eventN` nodes in `directory` sorted by N, each with the `by-id` / `by-path`
    /// links that resolve to it. A missing directory is a result, not an error.
    public static func scan(_ directory: String = inputDirectory) throws(SystemError) -> DeviceScan {
        let names: [String]
        do {
            names = try listDirectory(directory)
        } catch  where error.errno == .noSuchFileOrDirectory || error.errno == .notDirectory {
            return .noInputDirectory(directory)
        }
        var nodes = names.compactMap { name -> DeviceNode? in
            eventNumber(name).map { DeviceNode(path: directory + "/" + name, number: $0) }
        }
        nodes.sort { $0.number < $1.number }
        let links = stableLinks(directory)
        for index in nodes.indices {
            let target = canonicalPath(nodes[index].path) ?? nodes[index].path
            nodes[index].links = links.filter { $0.target == target }.map(\.link).sorted()
        }
        return .nodes(nodes)
    }

    /// N when `name` is exactly `event` followed by decimal digits, else nil.
    public static func eventNumber(_ name: some StringProtocol) -> Int? {
        guard name.hasPrefix("event") else { return nil }
        let digits = name.dropFirst(5)
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return nil
        }
        return Int(digits)
    }

    /// Every symlink in `by-id` and `by-path` with its resolved target.
    static func stableLinks(_ directory: String) -> [(link: String, target: String)] {
        var result: [(link: String, target: String)] = []
        for sub in ["by-id", "by-path"] {
            let folder = directory + "/" + sub
            guard let names = try? listDirectory(folder) else { continue }
            for name in names {
                let link = folder + "/" + name
                if let target = canonicalPath(link) { result.append((link, target)) }
            }
        }
        return result
    }

    /// `realpath(3)`, nil when the path does not resolve.
    static func canonicalPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Entry names of a directory, without `.` and `..`.
    static func listDirectory(_ path: String) throws(SystemError) -> [String] {
        try Directory.entryNames(path)
    }
}
