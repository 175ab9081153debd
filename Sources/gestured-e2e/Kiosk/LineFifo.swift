import Foundation
import Glibc
import SystemCalls
import SystemPackage

/// A FIFO a kiosk client writes its output to (the compositor starts the client as the
/// kiosk user, so the driver cannot hold a pipe of its own), read line by line without
/// blocking, each line stamped with CLOCK_MONOTONIC as it is read.
final class LineFifo {
    let path: String
    private let readEnd: Int32
    /// Held open so the FIFO never reports a hang-up when the client exits (or has not
    /// opened it yet): a poll loop would spin.
    private let writeEnd: Int32
    private var buffer: [UInt8] = []

    /// Makes the FIFO (mode 0666: the client runs as another user) and opens both ends.
    init(path: String) throws(CaseFailure) {
        self.path = path
        RegularFile.remove(path: path)
        do {
            try SystemCall.posixBlocking("mkfifo", path: path) { mkfifo(path, 0o666) }
            try SystemCall.posixBlocking("chmod", path: path) { chmod(path, 0o666) }
        } catch {
            throw CaseFailure("mkfifo \(path): \(errorText(error.errno.rawValue))")
        }
        // Non-blocking: the read end opens with no writer yet, and then the write end with it.
        do {
            readEnd = try SystemCall.posixBlocking("open", path: path) { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        } catch {
            throw CaseFailure("open \(path): \(errorText(error.errno.rawValue))")
        }
        do {
            writeEnd = try SystemCall.posixBlocking("open", path: path) { open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC) }
        } catch {
            try? FileDescriptor(rawValue: readEnd).close()
            throw CaseFailure("open \(path): \(errorText(error.errno.rawValue))")
        }
    }

    deinit {
        try? FileDescriptor(rawValue: readEnd).close()
        try? FileDescriptor(rawValue: writeEnd).close()
        RegularFile.remove(path: path)
    }

    /// Waits up to `milliseconds` for output (and for `subscriber`'s socket, which is read
    /// too so the daemon never queues for it), then returns every whole line available.
    func read(milliseconds: Int32, alongside subscriber: Subscriber?) -> [(line: String, receivedAt: UInt64)] {
        var descriptors = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
        if let subscriber { descriptors.append(pollfd(fd: subscriber.socket.rawValue, events: Int16(POLLIN), revents: 0)) }
        _ = try? Polling.poll(&descriptors, timeoutMilliseconds: milliseconds)
        subscriber?.receive(timeout: 0)
        var lines: [(line: String, receivedAt: UInt64)] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            guard case .processed(let n)? = try? Polling.read(FileDescriptor(rawValue: readEnd), into: &chunk), n > 0 else { break }
            let receivedAt = monotonicMicroseconds()
            buffer += chunk[..<n]
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append((String(decoding: buffer[..<newline], as: UTF8.self), receivedAt))
                buffer.removeSubrange(...newline)
            }
        }
        return lines
    }
}
