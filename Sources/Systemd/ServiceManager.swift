import CSystemd
import Glibc
import SystemCalls
import SystemPackage

/// What a service tells systemd and takes from it: `sd_notify` messages (all no-ops without
/// `NOTIFY_SOCKET`) and the listening sockets of socket activation. Shared by `gestured`
/// and `gestured-web`; each message has one function here, so no caller writes
/// `READY=1` by hand.
public enum ServiceManager {
    /// Sends raw `KEY=value` lines; returns whether a manager received them.
    @discardableResult
    static func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
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

    /// The listening sockets passed by socket activation (`LISTEN_FDS`), unsetting the
    /// environment variables so children do not inherit them.
    public static func listenDescriptors() throws(SystemError) -> [FileDescriptor] {
        let count = try SystemCall.negatedErrnoBlocking("sd_listen_fds") { sd_listen_fds(1) }
        return (0..<count).map { FileDescriptor(rawValue: SD_LISTEN_FDS_START + $0) }
    }

    /// Whether `fd` is a listening `AF_UNIX` `SOCK_STREAM` socket.
    public static func isListeningUnixStream(_ fd: FileDescriptor) -> Bool {
        sd_is_socket_unix(fd.rawValue, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0
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
            microseconds: getenv("WATCHDOG_USEC").map { String(cString: $0) },
            pid: getenv("WATCHDOG_PID").map { String(cString: $0) }, ownPID: getpid())
    }

    /// The pure rule of `watchdogInterval()`: `microseconds` and `pid` are the variables'
    /// values (nil: unset), `ownPID` this process's pid.
    public static func watchdogInterval(microseconds: String?, pid: String?, ownPID: pid_t) throws(SystemError) -> Duration? {
        guard let text = microseconds else { return nil }
        guard let value = UInt64(text), value > 0, value < UInt64.max else {
            throw SystemError(.invalidArgument, call: "WATCHDOG_USEC=\(text)")
        }
        if let pid {
            guard let named = pid_t(pid), named > 0 else { throw SystemError(.invalidArgument, call: "WATCHDOG_PID=\(pid)") }
            guard named == ownPID else { return nil }
        }
        return .microseconds(value)
    }

    /// `WATCHDOG=1`: the service is alive; due at least once per `watchdogInterval()`.
    public static func watchdogPing() {
        notify("WATCHDOG=1")
    }
}
