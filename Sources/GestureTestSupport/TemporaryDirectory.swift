#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp, removed (with everything in it) when the test is done.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/gestured-evdev-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: errno \(errno)")
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    deinit {
        _ = system("rm -rf '\(path)'")
    }

    func file(_ relative: String) {
        let fd = open(path + "/" + relative, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        precondition(fd >= 0, "create \(relative): errno \(errno)")
        close(fd)
    }

    func directory(_ relative: String) {
        precondition(mkdir(path + "/" + relative, 0o755) == 0, "mkdir \(relative): errno \(errno)")
    }

    func link(_ relative: String, to target: String) {
        precondition(symlink(target, path + "/" + relative) == 0, "symlink \(relative): errno \(errno)")
    }
}
