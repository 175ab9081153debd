#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed system or library call: the `errno` it reported, the call's name, and the path
/// it worked on when there is one. The one error type every wrapper in this target throws.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` value (positive), already converted from libevdev's / sd-*'s `-errno`.
    public var errno: Int32
    /// The call that failed, e.g. `open`, `libevdev_new_from_fd`.
    public var call: String
    /// The file the call worked on, if any.
    public var path: String?

    public init(errno: Int32, call: String, path: String? = nil) {
        self.errno = errno
        self.call = call
        self.path = path
    }

    /// The C library's text for `errno`, e.g. "Permission denied".
    public var reason: String { String(cString: strerror(errno)) }

    /// What an operator can do about it, when there is a well-known remedy.
    public var hint: String? {
        switch (errno, path) {
        case (EACCES, let path?) where path.hasPrefix("/dev/input"),
             (EPERM, let path?) where path.hasPrefix("/dev/input"):
            return "add the user to group `input` (or run the service with SupplementaryGroups=input)"
        case (ENOENT, "/dev/uinput"?):
            return "this kernel has no uinput"
        case (EACCES, "/dev/uinput"?):
            return "run as root or grant access to /dev/uinput"
        case (ENOTTY, _) where call.hasPrefix("libevdev_new"),
             (EINVAL, _) where call.hasPrefix("libevdev_new"):
            return "not an evdev device"
        default:
            return nil
        }
    }

    public var description: String {
        var text = path.map { "\($0): \(reason)" } ?? "\(call): \(reason)"
        if let hint { text += " — \(hint)" }
        if path != nil { text += " (\(call))" }
        return text
    }
}

/// The result of a non-blocking call: it did something, or it would have had to wait.
public enum IOResult<Value> {
    case processed(Value)
    case wouldBlock
}

extension IOResult: Equatable where Value: Equatable {}

/// The one place errno is interpreted (swift-system / NIO `System.swift` style): every
/// wrapper retries `EINTR`, reports `EAGAIN`/`EWOULDBLOCK` as `.wouldBlock`, and throws any
/// other failure as a `SystemError`.
public enum SystemCall {
    /// Runs a POSIX call that returns -1 and sets `errno` on failure.
    @inline(__always)
    public static func posix<T: FixedWidthInteger>(
        _ call: String, path: String? = nil, _ body: () -> T
    ) throws(SystemError) -> IOResult<T> {
        try retrying(call, path: path, body) { $0 == -1 ? Glibc.errno : nil }
    }

    /// Runs a call that returns `-errno` on failure (libevdev, sd-*), non-negative otherwise.
    @inline(__always)
    public static func negatedErrno(
        _ call: String, path: String? = nil, _ body: () -> Int32
    ) throws(SystemError) -> IOResult<Int32> {
        try retrying(call, path: path, body) { $0 < 0 ? -$0 : nil }
    }

    /// Like `posix`, for calls that can never legitimately return would-block (`open` of a
    /// regular file, `close`, `ioctl` …): would-block is thrown like any other error.
    @inline(__always) @discardableResult
    public static func posixBlocking<T: FixedWidthInteger>(
        _ call: String, path: String? = nil, _ body: () -> T
    ) throws(SystemError) -> T {
        switch try posix(call, path: path, body) {
        case .processed(let value): return value
        case .wouldBlock: throw SystemError(errno: EAGAIN, call: call, path: path)
        }
    }

    /// Like `negatedErrno`, for calls that can never legitimately return would-block.
    @inline(__always) @discardableResult
    public static func negatedErrnoBlocking(
        _ call: String, path: String? = nil, _ body: () -> Int32
    ) throws(SystemError) -> Int32 {
        switch try negatedErrno(call, path: path, body) {
        case .processed(let value): return value
        case .wouldBlock: throw SystemError(errno: EAGAIN, call: call, path: path)
        }
    }

    /// The shared loop: `failure` extracts the errno from a failed result (nil on success).
    @inline(__always)
    static func retrying<T>(
        _ call: String, path: String?, _ body: () -> T, failure: (T) -> Int32?
    ) throws(SystemError) -> IOResult<T> {
        while true {
            let result = body()
            guard let code = failure(result) else { return .processed(result) }
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw SystemError(errno: code, call: call, path: path)
            }
        }
    }
}
