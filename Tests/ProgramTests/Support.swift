import Foundation
import GestureTestSupport
import Glibc
import SystemPackage
import Testing

extension LineReader {
    /// A reader of what a child process writes into `pipe`.
    convenience init(_ pipe: Pipe) {
        self.init(FileDescriptor(rawValue: pipe.fileHandleForReading.fileDescriptor))
    }

    /// The next line's text, or nil at end of stream / when nothing came within the wait.
    func readText() -> String? {
        readLine()?.text
    }
}

extension Pipe {
    /// A Foundation pipe whose two ends are close-on-exec (`Pipe.closingOnExec()` makes them inheritable).
    /// Foundation's `Process` closes in its child only the descriptors open when it looked,
    /// so an inheritable pipe made by a test alongside at that moment stays open in that
    /// child (a daemon that lives for the rest of its test), and a read to the pipe's end
    /// waits for that daemon. Close-on-exec, the copy goes at the child's exec; the
    /// child's own standard streams are duplicated onto 0, 1 and 2, which are inherited.
    static func closingOnExec() -> Pipe {
        let pipe = Pipe()
        for handle in [pipe.fileHandleForReading, pipe.fileHandleForWriting] {
            _ = fcntl(handle.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }
        return pipe
    }
}
