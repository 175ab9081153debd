import GestureProtocol
import Glibc
import SystemCalls
import SystemPackage

/// How long anything waits for the other side by default: generous, so that only a real
/// failure (nothing comes) ends a wait, never a slow machine; tests never sleep instead.
public let defaultWaitMilliseconds: Int32 = 10_000

/// Waits until `fd` is readable; false after `milliseconds` without.
public func waitReadable(_ fd: FileDescriptor, milliseconds: Int32 = defaultWaitMilliseconds) -> Bool {
    // SystemCall.posix retries EINTR with the whole wait again; any failure is "not readable".
    var entry = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
    guard case .processed(let ready)? = try? SystemCall.posix("poll", { poll(&entry, 1, milliseconds) }) else { return false }
    return ready > 0
}

/// One line read from a socket or pipe (without its newline), with the moment the read that
/// completed it returned (CLOCK_MONOTONIC µs): what a latency measurement needs.
public struct StampedLine: Sendable {
    public let bytes: [UInt8]
    public let receivedAt: UInt64

    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// Reads newline-terminated lines from a descriptor (a socket, a child's output) with a
/// bounded wait, split by the protocol's one framer (`LineFramer`): a line longer than its
/// bound ends the stream, as it ends a client's connection to the daemon. Does not own the
/// descriptor.
public final class LineReader {
    public let descriptor: FileDescriptor
    private var framer: LineFramer
    /// One receive buffer for the reader's life (a fresh one per read made the end-to-end
    /// driver, not the daemon, the bottleneck with 50 clients under emulation).
    private var chunk = [UInt8](repeating: 0, count: 65536)
    private var lines: [StampedLine] = []
    private var nextLine = 0
    /// The other side closed (or the descriptor failed, or a line was too long: then
    /// `lineTooLong` says so); complete lines may still be pending.
    public private(set) var isClosed = false
    /// The other side sent a line longer than the framer's bound: the stream was ended there.
    public private(set) var lineTooLong: LineFramer.LineTooLong?

    /// Reads from `descriptor`; a line longer than `maximumLength` bytes ends the stream.
    public init(_ descriptor: FileDescriptor, maximumLength: Int = LineFramer.defaultMaximumLength) {
        self.descriptor = descriptor
        framer = LineFramer(maximumLength: maximumLength)
    }

    /// Waits up to `timeout` ms for data and reads once what is there: the lines that read
    /// completed (empty when it brought only part of one), or nil when nothing came (timeout,
    /// end of stream). A reader is used through this or through `readLine`, not both.
    public func receive(timeout: Int32) -> [StampedLine]? {
        if case .lines(let lines) = readOnce(timeout: timeout) { return lines }
        return nil
    }

    private enum ReadOutcome {
        case lines([StampedLine])
        case timedOut
        case closed
    }

    private func readOnce(timeout: Int32) -> ReadOutcome {
        guard !isClosed else { return .closed }
        guard waitReadable(descriptor, milliseconds: max(0, timeout)) else { return .timedOut }
        let count: Int
        do {
            // swift-system's read retries EINTR; a non-blocking descriptor with nothing
            // after all is an empty read, any other failure the end of the stream.
            count = try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0) }
        } catch let error as Errno where error == .wouldBlock {
            return .lines([])
        } catch {
            isClosed = true
            return .closed
        }
        let now = monotonicMicroseconds()
        guard count > 0 else {
            isClosed = true
            return .closed
        }
        do {
            return .lines(try framer.append(chunk[..<count]).map { StampedLine(bytes: $0, receivedAt: now) })
        } catch {
            lineTooLong = error
            isClosed = true
            return .closed
        }
    }

    /// The next line, waiting up to `timeout` ms for each read; nil at end of stream or
    /// when nothing came in time.
    public func readLine(timeout: Int32 = defaultWaitMilliseconds) -> StampedLine? {
        while nextLine == lines.count {
            lines.removeAll(keepingCapacity: true)
            nextLine = 0
            switch readOnce(timeout: timeout) {
            case .lines(let received): lines += received
            case .timedOut, .closed: return nil
            }
        }
        defer { nextLine += 1 }
        return lines[nextLine]
    }
}

/// A client of a line-oriented stream socket, as any application of the daemon's is: it
/// connects, sends request lines and reads the lines the server sends, each read bounded
/// by a wait (a missing line is a failure, never a hang). Closes its socket when released.
public final class LineClient {
    public let socket: FileDescriptor
    public let reader: LineReader

    /// Connects to the socket at `path`; `receiveBuffer` sets `SO_RCVBUF` first (a small
    /// one makes a slow client quickly).
    public init(path: String, receiveBuffer: Int32? = nil) throws(SystemError) {
        let socket = try UnixSocket.make(.stream)
        do {
            if var size = receiveBuffer {
                try SystemCall.posixBlocking("setsockopt") {
                    setsockopt(socket.rawValue, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
                }
            }
            try UnixSocketAddress(path).connect(socket)
        } catch {
            try? socket.close()
            throw error
        }
        self.socket = socket
        reader = LineReader(socket)
    }

    deinit {
        try? socket.close()
    }

    /// Sends `text` whole (add the newline yourself: a test may send half a line).
    public func send(_ text: String) throws(SystemError) {
        try send(Array(text.utf8))
    }

    /// Sends `bytes` whole.
    public func send(_ bytes: [UInt8]) throws(SystemError) {
        try UnixSocket.sendAll(socket, bytes)
    }

    /// Half-closes: the server reads end of stream, and may still write.
    public func shutdownWrite() {
        _ = try? SystemCall.posixBlocking("shutdown") { shutdown(socket.rawValue, Int32(SHUT_WR)) }
    }

    /// The next line's text, or nil at end of stream / after `timeout` ms without one.
    public func readLine(timeout: Int32 = defaultWaitMilliseconds) -> String? {
        reader.readLine(timeout: timeout)?.text
    }

    /// True when the server closed the connection (after any remaining lines), false
    /// when it kept it open past the wait or sent a line longer than the reader's bound.
    public func readsEndOfStream(timeout: Int32 = defaultWaitMilliseconds) -> Bool {
        while reader.readLine(timeout: timeout) != nil {}
        return reader.isClosed && reader.lineTooLong == nil
    }
}
