import Glibc
import SystemPackage

/// Reading directories (`opendir`/`readdir`).
public enum Directory {
    /// Entry names of the directory at `path`, without `.` and `..`, in the order the file
    /// system gives them.
    public static func entryNames(_ path: String) throws(SystemError) -> [String] {
        guard let dir = opendir(path) else {
            throw SystemError(Errno(rawValue: errno), call: "opendir", path: path)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
