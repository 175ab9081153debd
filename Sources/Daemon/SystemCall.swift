#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed system or libsystemd call: the call's name and its errno.
public struct SystemError: Error, CustomStringConvertible, Equatable {
    public var call: String
    public var errno: Int32

    public init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String {
        "\(call): \(String(cString: strerror(errno)))"
    }
}

/// The outcome of a non-blocking read or write: would-block is a value, not an error.
public enum IOResult<Value: Equatable>: Equatable {
    case done(Value)
    case wouldBlock
}

/// Converts a libsystemd-style return (`-errno` on failure) into a thrown `SystemError`,
/// the one place where `-errno` is interpreted. Returns the non-negative result.
@discardableResult
func sdCheck(_ call: @autoclosure () -> Int32, _ name: StaticString) throws(SystemError) -> Int32 {
    let result = call()
    if result < 0 { throw SystemError("\(name)", errno: -result) }
    return result
}

/// Runs a POSIX call that returns -1 and sets errno, retrying EINTR.
@discardableResult
func posixCall<T: BinaryInteger>(_ name: @autoclosure () -> String, _ body: () -> T) throws(SystemError) -> T {
    while true {
        let result = body()
        if result >= 0 { return result }
        let code = errno
        if code == EINTR { continue }
        throw SystemError(name(), errno: code)
    }
}

/// Like `posixCall`, but EAGAIN/EWOULDBLOCK becomes `.wouldBlock`.
func nonBlockingCall<T: BinaryInteger>(_ name: @autoclosure () -> String, _ body: () -> T) throws(SystemError) -> IOResult<T> {
    while true {
        let result = body()
        if result >= 0 { return .done(result) }
        let code = errno
        if code == EINTR { continue }
        if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock }
        throw SystemError(name(), errno: code)
    }
}

/// The current CLOCK_MONOTONIC time in microseconds (the clock of every loop deadline).
public func monotonicMicroseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1_000
}
