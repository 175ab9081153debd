import Glibc
import SystemCalls
import SystemPackage

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
        guard (try? SystemCall.posixBlocking("lstat", path: path) { lstat(path, &info) }) != nil else { return }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            RegularFile.remove(path: path)
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
        RegularFile.remove(path: path, isDirectory: true)
    }

    /// The path of `name` (relative to the directory); creates nothing.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Creates a file holding `contents`; returns its path.
    @discardableResult
    public func createFile(_ name: String, contents: [UInt8] = []) -> String {
        let file = file(name)
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(
                file, .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: [.ownerReadWrite])
        } catch {
            preconditionFailure("create \(file): \(error)")
        }
        defer { try? fd.close() }
        do {
            try fd.writeAll(contents)
        } catch {
            preconditionFailure("write \(file): \(error)")
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
        do {
            try SystemCall.posixBlocking("mkdir", path: directory) { mkdir(directory, 0o755) }
        } catch {
            preconditionFailure("mkdir \(directory): \(error)")
        }
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
