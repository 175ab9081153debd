import Glibc

/// A fresh directory under `$TMPDIR` (else /tmp), removed with everything in it when
/// released. scripts/test.sh points `TMPDIR` at its run's own directory, so that what a
/// crashed or killed test could not remove goes with the run.
public final class TemporaryDirectory {
    public let path: String

    public init(prefix: String = "gestured-test") {
        var parent = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        if parent.isEmpty { parent = "/tmp" }
        var template = Array("\(parent)/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: errno \(errno)")
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    deinit {
        Self.removeTree(path)
    }

    /// Removes `path` and, for a directory, everything in it, depth first and without
    /// following links (a link a test made to elsewhere removes only the link).
    private static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            unlink(path)
            return
        }
        var names: [String] = []
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(directory)
        }
        for name in names { removeTree(path + "/" + name) }
        rmdir(path)
    }

    /// The path of `name` (relative to the directory); creates nothing.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Creates a file holding `contents`; returns its path.
    @discardableResult
    public func createFile(_ name: String, contents: [UInt8] = []) -> String {
        let file = file(name)
        let fd = open(file, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0o600)
        precondition(fd >= 0, "create \(file): errno \(errno)")
        defer { close(fd) }
        contents.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                precondition(written > 0 || errno == EINTR, "write \(file): errno \(errno)")
                offset += max(0, written)
            }
        }
        return file
    }

    /// Creates a file holding `text`; returns its path.
    @discardableResult
    public func createFile(_ name: String, text: String) -> String {
        createFile(name, contents: Array(text.utf8))
    }

    /// Creates a directory; returns its path.
    @discardableResult
    public func createDirectory(_ name: String) -> String {
        let directory = file(name)
        precondition(mkdir(directory, 0o755) == 0, "mkdir \(directory): errno \(errno)")
        return directory
    }

    /// Creates a symbolic link to `target`; returns its path.
    @discardableResult
    public func createLink(_ name: String, to target: String) -> String {
        let link = file(name)
        precondition(symlink(target, link) == 0, "symlink \(link): errno \(errno)")
        return link
    }
}
