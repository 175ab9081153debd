// The protocol's types are this library's: `import GestureClient` is all a client needs.
@_exported import GestureProtocol
import Glibc
import SystemCalls
import SystemPackage

/// A client library for the gestured socket (protocol 1): typed messages in and out, through
/// GestureProtocol's encoder and decoder (no Foundation: a statically linked client stays
/// small, docs/packaging.md).
///
/// ```swift
/// let client = try GestureClient.connect()
/// try client.subscribe(gestures: [.tap, .swipe])
/// for try await message in client.messages {
///     if case .gesture(let g) = message { print(g.gesture, g.phase, g.location) }
/// }
/// ```
public final class GestureClient: @unchecked Sendable {
    /// `$GESTURED_SOCKET`, else `/run/gestured/gestured.sock` (`DaemonSocket`'s rule).
    public static var defaultSocketPath: String {
        DaemonSocket.path(explicit: nil, environment: Environment.value)
    }

    private let fd: FileDescriptor
    /// The socket's path, for errors.
    public let path: String
    /// Every line the server sends, in order, with the message decoded from it; ends when
    /// the server closes. One reader per client: iterate this or `messages`, not both.
    public let received: AsyncThrowingStream<ReceivedLine, Error>

    /// Every message the server sends, decoded, in order; ends when the server closes.
    public var messages: AsyncThrowingMapSequence<AsyncThrowingStream<ReceivedLine, Error>, ServerMessage> {
        received.map(\.message)
    }

    private init(fd: FileDescriptor, path: String, received: AsyncThrowingStream<ReceivedLine, Error>) {
        self.fd = fd
        self.path = path
        self.received = received
    }

    deinit {
        UnixSocket.shutdown(fd)
        try? fd.close()
    }

    /// Connects to the daemon's socket.
    public static func connect(path: String = defaultSocketPath) throws(ConnectionError) -> GestureClient {
        let fd = try openSocket(path)
        let (received, continuation) = AsyncThrowingStream<ReceivedLine, Error>.makeStream()
        let started = LineReader(fd: fd, path: path, continuation: continuation).start()
        guard started == 0 else {
            try? fd.close()
            throw .failed(path: path, reason: "cannot start the reader thread: \(String(cString: strerror(started)))")
        }
        return GestureClient(fd: fd, path: path, received: received)
    }

    /// A blocking connection to the daemon's socket at `path`; a failure says why in the
    /// client's terms (not running, permission denied).
    static func openSocket(_ path: String) throws(ConnectionError) -> FileDescriptor {
        do {
            return try UnixSocket.connect(to: path)
        } catch {
            switch error.errno {
            case .noSuchFileOrDirectory, .connectionRefused: throw .notRunning(path: path)
            case .permissionDenied, .notPermitted: throw .permissionDenied(path: path)
            case .fileNameTooLong: throw .failed(path: path, reason: "path too long")
            default: throw .failed(path: path, reason: error.reason)
            }
        }
    }

    /// Chooses the events to receive; nil means all. `regions` may contain nil for
    /// gestures outside every region.
    public func subscribe(gestures: [GestureKind]? = nil, regions: [String?]? = nil, devices: [String]? = nil, touches: Bool = false)
        throws(ConnectionError)
    {
        try send(.subscribe(SubscribeRequest(gestures: gestures, regions: regions, devices: devices, touches: touches)))
    }

    /// Asks for a `pong`.
    public func ping() throws(ConnectionError) { try send(.ping) }

    /// Asks for a `status`.
    public func requestStatus() throws(ConnectionError) { try send(.status) }

    /// Sends one request line, all of it (a `send` that takes part of it is followed by
    /// another for the rest); a failure names the socket and the call's own error.
    public func send(_ request: ClientRequest) throws(ConnectionError) {
        do {
            try UnixSocket.sendAll(fd, WireEncoder.encode(request))
        } catch {
            throw ConnectionError.failed(path: path, reason: "send: \(error.reason)")
        }
    }
}

/// Why a connection failed.
public enum ConnectionError: Error, CustomStringConvertible, Equatable {
    case notRunning(path: String)
    case permissionDenied(path: String)
    case failed(path: String, reason: String)

    public var description: String {
        switch self {
        case .notRunning(let path): "gestured is not running (no socket at \(path))"
        case .permissionDenied(let path): "permission denied on \(path)"
        case .failed(let path, let reason): "cannot use \(path): \(reason)"
        }
    }
}

/// One line from the server exactly as it arrived (without its newline), and its decoding.
public struct ReceivedLine: Sendable {
    public let text: String
    public let message: ServerMessage
}

/// Reads lines on its own thread and feeds them, decoded, to the stream.
private final class LineReader: @unchecked Sendable {
    let fd: FileDescriptor
    let path: String
    let continuation: AsyncThrowingStream<ReceivedLine, Error>.Continuation

    init(fd: FileDescriptor, path: String, continuation: AsyncThrowingStream<ReceivedLine, Error>.Continuation) {
        self.fd = fd
        self.path = path
        self.continuation = continuation
    }

    /// Runs `run()` on a detached POSIX thread (a blocking `recv` has no place on the
    /// cooperative pool); 0, or pthread_create's error number.
    func start() -> Int32 {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<LineReader>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<LineReader>.fromOpaque(context).release()
            return result
        }
        pthread_detach(thread)
        return 0
    }

    /// Reads until the server closes; a line that is not a valid message, or longer than
    /// `LineFramer.defaultMaximumLength`, ends the stream with its error, and so does a
    /// failed `recv` (a `ConnectionError` naming the socket: a reset is not a clean close).
    func run() {
        var framer = LineFramer()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n: Int
            do throws(SystemError) {
                switch try UnixSocket.receive(fd, into: &chunk) {
                case .processed(let count): n = count
                // A blocking socket: would-block only with a receive timeout nobody sets.
                case .wouldBlock: throw SystemError(.resourceTemporarilyUnavailable, call: "recv")
                }
            } catch {
                continuation.finish(throwing: ConnectionError.failed(path: path, reason: "recv: \(error.reason)"))
                return
            }
            if n == 0 { break }
            do {
                for line in try framer.append(chunk[..<n]) {
                    let message = try WireDecoder.message(line)
                    continuation.yield(ReceivedLine(text: String(decoding: line, as: UTF8.self), message: message))
                }
            } catch {
                continuation.finish(throwing: error)
                return
            }
        }
        continuation.finish()
    }
}
