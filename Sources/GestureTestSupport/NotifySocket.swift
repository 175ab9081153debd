import Glibc
import SystemCalls
import SystemPackage

/// Nothing came within the wait.
public struct TimedOut: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// A bound datagram socket standing in for systemd's `NOTIFY_SOCKET`: what the daemon's
/// `sd_notify` sends (`READY=1`, `STATUS=…`, `WATCHDOG=1`) arrives here, one datagram per
/// notification. Removes its file when released.
public final class NotifySocket {
    public let path: String
    public let socket: FileDescriptor

    /// Binds `path` (a leftover file there is removed first).
    public init(path: String) throws(SystemError) {
        RegularFile.remove(path: path)
        self.path = path
        socket = try UnixSocket.bind(.datagram, to: path, nonBlocking: true)
    }

    deinit {
        try? socket.close()
        RegularFile.remove(path: path)
    }

    /// The next notification, or nil when none came within `timeout` ms.
    public func next(timeout: Int32 = defaultWaitMilliseconds) -> String? {
        while true {
            if let message = receive() { return message }
            guard waitReadable(socket, milliseconds: timeout) else { return nil }
        }
    }

    /// Notifications until one contains `text`, which is returned.
    public func wait(for text: String, timeout: Int32 = defaultWaitMilliseconds) throws(TimedOut) -> String {
        while let message = next(timeout: timeout) {
            if message.contains(text) { return message }
        }
        throw TimedOut("no notification containing \(text) within \(timeout) ms")
    }

    /// Every notification waiting now, without waiting.
    public func drain() -> [String] {
        var messages: [String] = []
        while let message = receive() { messages.append(message) }
        return messages
    }

    private func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        guard case .processed(let count)? = try? UnixSocket.receive(socket, into: &buffer), count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}
