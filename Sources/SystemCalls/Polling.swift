import Glibc
import SystemPackage

/// `poll(2)` and non-blocking reads for a loop of its own (`gesturectl actions`' command
/// supervisor); the daemon's loop is `EventLoop`, on sd-event.
public enum Polling {
    /// Waits until a descriptor of `descriptors` is ready or `timeoutMilliseconds` pass (-1:
    /// no limit), and fills in their `revents`. Returns how many are ready; 0 on timeout
    /// and when a signal interrupted the wait (the caller's loop polls again).
    public static func poll(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) throws(SystemError) -> Int {
        let ready = Glibc.poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds)
        if ready >= 0 { return Int(ready) }
        if Glibc.errno == EINTR { return 0 }
        throw SystemError(Errno(rawValue: Glibc.errno), call: "poll")
    }

    /// Reads what `fd` (non-blocking) has, up to `buffer.count` bytes, into `buffer`:
    /// `.processed(0)` at the end of the stream, `.wouldBlock` when nothing is there yet.
    public static func read(_ fd: FileDescriptor, into buffer: inout [UInt8]) throws(SystemError) -> IOResult<Int> {
        try SystemCall.posix("read") { buffer.withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, $0.count) } }
    }
}
