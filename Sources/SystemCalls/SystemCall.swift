import Glibc
import SystemPackage

/// The result of a non-blocking call: it did something, or it would have had to wait.
public enum IOResult<Value> {
    case processed(Value)
    case wouldBlock
}

extension IOResult: Equatable where Value: Equatable {}

/// The one place errno is interpreted for the calls swift-system does not wrap (sockets,
/// inotify, ioctl, the `*at` family, and the `-errno` results of libevdev and sd-*): every
/// wrapper retries `EINTR`, reports `EAGAIN`/`EWOULDBLOCK` as `.wouldBlock` (a value, so a
/// drained socket costs no thrown error), and throws any other failure as a `SystemError`.
/// Calls swift-system does wrap go through `adopting`, which names them in the error.
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
        try completed(posix(call, path: path, body), call: call, path: path)
    }

    /// Runs a call that returns an errno value itself, 0 on success (`posix_spawn`'s
    /// family), and throws that errno as a `SystemError`.
    @inline(__always)
    public static func returnedErrno(_ call: String, path: String? = nil, _ body: () -> Int32) throws(SystemError) {
        let code = body()
        guard code != 0 else { return }
        throw SystemError(Errno(rawValue: code), call: call, path: path)
    }

    /// Like `negatedErrno`, for calls that can never legitimately return would-block.
    @inline(__always) @discardableResult
    public static func negatedErrnoBlocking(
        _ call: String, path: String? = nil, _ body: () -> Int32
    ) throws(SystemError) -> Int32 {
        try completed(negatedErrno(call, path: path, body), call: call, path: path)
    }

    /// The value of a call that must not block; would-block is thrown as `EAGAIN`.
    @inline(__always)
    static func completed<T>(_ result: IOResult<T>, call: String, path: String?) throws(SystemError) -> T {
        switch result {
        case .processed(let value): return value
        case .wouldBlock: throw SystemError(.resourceTemporarilyUnavailable, call: call, path: path)
        }
    }

    /// Runs a swift-system call (which retries `EINTR` itself) and names it in the error.
    /// swift-system throws only `Errno`; anything else would be reported as `EIO`.
    @inline(__always) @discardableResult
    public static func adopting<T>(_ call: String, path: String? = nil, _ body: () throws -> T) throws(SystemError) -> T {
        do {
            return try body()
        } catch {
            throw SystemError(error as? Errno ?? .ioError, call: call, path: path)
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
            default: throw SystemError(Errno(rawValue: code), call: call, path: path)
            }
        }
    }
}
