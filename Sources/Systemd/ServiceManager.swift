import SystemCalls
import SystemPackage

/// What a service tells systemd and takes from it: notifications (`sd_notify(3)`'s
/// protocol, all no-ops without `NOTIFY_SOCKET`) and the listening sockets of socket
/// activation (`sd_listen_fds(3)`'s). Shared by `gestured` and `gestured-web`; each message
/// has one function here, so no caller writes `READY=1` by hand.
///
/// Both protocols are spoken here directly, over `SystemCalls`, not through libsystemd
/// (docs/architecture.md, "No libsystemd"). They are systemd's documented, stable
/// interface (systemd's "Interface Portability and Stability" promise).
public enum ServiceManager {
    /// The first descriptor socket activation passes (`SD_LISTEN_FDS_START`).
    public static let firstListenDescriptor: Int32 = 3

    /// Sends raw `KEY=value` lines to the manager named by `NOTIFY_SOCKET`; returns whether
    /// one received them.
    @discardableResult
    static func notify(_ state: String) -> Bool {
        notify(state, socket: Environment.value("NOTIFY_SOCKET"))
    }

    /// Sends `state` as one datagram to `socket` (a `NOTIFY_SOCKET` value): false without
    /// one, for a value systemd would not set, or when the datagram could not go.
    static func notify(_ state: String, socket: String?) -> Bool {
        guard let socket, let address = notifyAddress(socket) else { return false }
        guard let descriptor = try? UnixSocket.make(.datagram) else { return false }
        defer { try? descriptor.close() }
        return (try? UnixSocket.sendDatagram(descriptor, Array(state.utf8), to: address)) != nil
    }

    /// The address a `NOTIFY_SOCKET` value names: an absolute path, or `@name` in the
    /// abstract namespace; nil for anything else (a relative path, an empty value, or a
    /// `vsock:` address, which systemd only sets for virtual machines).
    static func notifyAddress(_ value: String) -> UnixSocketAddress? {
        if value.hasPrefix("/") { return try? UnixSocketAddress(value) }
        if value.hasPrefix("@") { return try? UnixSocketAddress(abstractName: String(value.dropFirst())) }
        return nil
    }

    /// `READY=1` with a status line: startup is complete, or a reload (`reloading()`) is.
    public static func ready(status: String) {
        notify("READY=1\nSTATUS=\(status)")
    }

    /// `STATUS=`: the one-line status `systemctl status` shows.
    public static func status(_ text: String) {
        notify("STATUS=\(text)")
    }

    /// `RELOADING=1` with the monotonic timestamp systemd ≥ 253 requires for `Type=notify-reload`.
    public static func reloading() {
        notify("RELOADING=1\nMONOTONIC_USEC=\(monotonicMicroseconds())")
    }

    /// `STOPPING=1`: the service is shutting down.
    public static func stopping() {
        notify("STOPPING=1")
    }

    /// The listening sockets passed by socket activation (`LISTEN_FDS` descriptors from 3
    /// on, when `LISTEN_PID` is this process), made close-on-exec, with `LISTEN_PID`,
    /// `LISTEN_FDS` and `LISTEN_FDNAMES` unset so children do not take them for theirs.
    /// Throws `EINVAL` for variables systemd would not set.
    public static func listenDescriptors() throws(SystemError) -> [FileDescriptor] {
        try listenDescriptors(startingAt: firstListenDescriptor)
    }

    /// `listenDescriptors()` with the descriptors numbered from `first` (the tests' own).
    static func listenDescriptors(startingAt first: Int32) throws(SystemError) -> [FileDescriptor] {
        let count = try listenDescriptorCount(
            pid: Environment.value("LISTEN_PID"), fds: Environment.value("LISTEN_FDS"), ownPID: Subprocess.currentID)
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { Environment.unset(name) }
        let descriptors = (0..<count).map { FileDescriptor(rawValue: first + Int32($0)) }
        for descriptor in descriptors { try Subprocess.setCloseOnExec(descriptor) }
        return descriptors
    }

    /// How many descriptors `LISTEN_PID` and `LISTEN_FDS` pass to the process `ownPID`: none
    /// when `LISTEN_PID` is unset or names another process (a parent's variables inherited),
    /// `EINVAL` when either is not a decimal number or the count is out of range.
    static func listenDescriptorCount(pid: String?, fds: String?, ownPID: Int32) throws(SystemError) -> Int {
        guard let pid else { return 0 }
        guard try pidVariable("LISTEN_PID", pid, names: ownPID) else { return 0 }
        guard let fds else { return 0 }
        guard let count = Int(fds), count >= 0, count <= Int(Int32.max - firstListenDescriptor) else {
            throw SystemError(.invalidArgument, call: "LISTEN_FDS")
        }
        return count
    }

    /// Whether the value of systemd's `variable` (`LISTEN_PID`, `WATCHDOG_PID`) names the
    /// process `ownPID`; `EINVAL`, naming the variable and its value, when it is not a
    /// positive decimal pid.
    static func pidVariable(_ variable: String, _ value: String, names ownPID: Int32) throws(SystemError) -> Bool {
        guard let pid = Int32(value), pid > 0 else { throw SystemError(.invalidArgument, call: "\(variable)=\(value)") }
        return pid == ownPID
    }

    /// Whether `fd` is a listening `AF_UNIX` `SOCK_STREAM` socket.
    public static func isListeningUnixStream(_ fd: FileDescriptor) -> Bool {
        UnixSocket.kind(of: fd)?.isListeningUnixStream ?? false
    }
}

// The systemd watchdog (`WatchdogSec=`), as sd_watchdog_enabled(3) and sd_notify(3) document it.
extension ServiceManager {
    /// The watchdog interval systemd asks this process to keep (`WATCHDOG_USEC`); nil when it
    /// asks for none (the variable unset, or `WATCHDOG_PID` naming another process). The
    /// variables stay set (as with `sd_watchdog_enabled(0, …)`). Throws `EINVAL`, naming the
    /// variable, when either is set to something that is not a positive number (as
    /// `sd_watchdog_enabled` fails): a watchdog asked for and silently not kept would get the
    /// service killed.
    public static func watchdogInterval() throws(SystemError) -> Duration? {
        try watchdogInterval(
            microseconds: Environment.value("WATCHDOG_USEC"), pid: Environment.value("WATCHDOG_PID"), ownPID: Subprocess.currentID)
    }

    /// The pure rule of `watchdogInterval()`: `microseconds` and `pid` are the variables'
    /// values (nil: unset), `ownPID` this process's pid.
    public static func watchdogInterval(microseconds: String?, pid: String?, ownPID: Int32) throws(SystemError) -> Duration? {
        guard let text = microseconds else { return nil }
        guard let value = UInt64(text), value > 0, value < UInt64.max else {
            throw SystemError(.invalidArgument, call: "WATCHDOG_USEC=\(text)")
        }
        if let pid {
            guard try pidVariable("WATCHDOG_PID", pid, names: ownPID) else { return nil }
        }
        return .microseconds(value)
    }

    /// `WATCHDOG=1`: the service is alive; due at least once per `watchdogInterval()`.
    public static func watchdogPing() {
        notify("WATCHDOG=1")
    }
}
