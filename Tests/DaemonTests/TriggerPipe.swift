import Glibc
import SystemPackage

/// The pipe a test's `InputSource` is driven through: `trigger` writes one byte, the daemon
/// sees the read end ready, and `drain` hands the source each byte written.
final class TriggerPipe {
    let readEnd: FileDescriptor
    let writeEnd: FileDescriptor

    init() throws {
        (readEnd, writeEnd) = try FileDescriptor.pipe(options: [.nonBlocking, .closeOnExec])
    }

    deinit {
        try? readEnd.close()
        try? writeEnd.close()
    }

    func trigger(_ byte: UInt8) {
        var b = byte
        _ = write(writeEnd.rawValue, &b, 1)
    }

    /// Calls `body` with each byte written so far, until none is left or `body` returns false.
    func drain(_ body: (UInt8) -> Bool) {
        var byte: UInt8 = 0
        while read(readEnd.rawValue, &byte, 1) == 1 {
            guard body(byte) else { return }
        }
    }
}
