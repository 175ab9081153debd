import Glibc
import SystemPackage

/// Signals delivered as data: a handler writes each signal's number to a pipe that an event
/// loop watches (the self-pipe trick), whatever thread the kernel picks and whatever mask
/// the process inherited. Signals are process-wide, so the newest pipe gets them.
///
/// The handler does only async-signal-safe work (one `write`, `errno` saved and restored).
public enum SignalForwarding {
    /// Makes a pipe for forwarded signals (non-blocking, close-on-exec) and directs every
    /// forwarded signal to its write end from now on.
    public static func makePipe() throws(SystemError) -> (readEnd: FileDescriptor, writeEnd: FileDescriptor) {
        let (readEnd, writeEnd) = try SystemCall.adopting("pipe2") {
            try FileDescriptor.pipe(options: [.nonBlocking, .closeOnExec])
        }
        forwardingWriteEnd = writeEnd.rawValue
        return (readEnd, writeEnd)
    }

    /// Stops writing signals to `writeEnd` if it is the current pipe (call before closing it).
    public static func stopForwarding(to writeEnd: FileDescriptor) {
        if forwardingWriteEnd == writeEnd.rawValue { forwardingWriteEnd = -1 }
    }

    /// Forwards `signal` to the current pipe (`sigaction`, `SA_RESTART`) and unblocks it in
    /// the calling thread: a blocked mask is inherited across exec (a parent that spawns
    /// from a thread that blocks signals, as libdispatch's workers do).
    public static func forward(_ signal: Int32) throws(SystemError) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = writeSignalNumber
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        try SystemCall.posixBlocking("sigaction") { sigaction(signal, &action, nil) }
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, signal)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)  // fails only for an invalid `how`
    }

    /// The next signal number waiting in the pipe's read end, nil when none is.
    public static func nextSignal(from readEnd: FileDescriptor) -> Int32? {
        var number: Int32 = 0
        let size = MemoryLayout<Int32>.size
        guard case .processed(let count)? = try? SystemCall.posix("read", { read(readEnd.rawValue, &number, size) }),
            count == size
        else { return nil }
        return number
    }
}

/// The write end signals go to; -1 when no pipe takes them.
nonisolated(unsafe) private var forwardingWriteEnd: Int32 = -1

private func writeSignalNumber(_ number: Int32) {
    let saved = errno
    var number = number
    _ = write(forwardingWriteEnd, &number, MemoryLayout<Int32>.size)
    errno = saved
}
