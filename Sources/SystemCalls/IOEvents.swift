import CSystemCalls

/// What a watched descriptor is ready for, or is watched for: epoll's events (the bits
/// sd-event passes to `epoll_ctl` and back), as a set.
public struct IOEvents: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Data to read, or a connection to accept (`EPOLLIN`).
    public static let readable = IOEvents(rawValue: UInt32(EPOLLIN.rawValue))
    /// Room to write (`EPOLLOUT`).
    public static let writable = IOEvents(rawValue: UInt32(EPOLLOUT.rawValue))
    /// The peer hung up (`EPOLLHUP`); reported whether watched or not.
    public static let hangUp = IOEvents(rawValue: UInt32(EPOLLHUP.rawValue))
    /// An error is pending on the descriptor (`EPOLLERR`); reported whether watched or not.
    public static let error = IOEvents(rawValue: UInt32(EPOLLERR.rawValue))
}
