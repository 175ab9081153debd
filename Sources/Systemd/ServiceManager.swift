import CSystemd
import Glibc
import SystemCalls
import SystemPackage

/// What a service tells systemd and takes from it, through libsystemd: notifications
/// (`sd_notify(3)`, no-ops without `NOTIFY_SOCKET`), the watchdog interval
/// (`sd_watchdog_enabled(3)`), the listening sockets of socket activation and the
/// descriptors of the service's file descriptor store (`sd_listen_fds_with_names(3)`, none
/// without `LISTEN_FDS`). Shared by `gestured` and
/// `gestured-web`; each message has one function here, so no caller writes `READY=1` by hand.
public enum ServiceManager {
    /// Sends `KEY=value` lines to the manager named by `NOTIFY_SOCKET` (`sd_notify`); returns
    /// whether one received them: false without `NOTIFY_SOCKET`, for a value libsystemd does
    /// not take (a relative path), or when the datagram could not go.
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

    /// `RELOADING=1` with the monotonic timestamp systemd ≥ 253 requires for `Type=notify-reload`
    /// (libsystemd 252 does not add it).
    public static func reloading() {
        notify("RELOADING=1\nMONOTONIC_USEC=\(monotonicMicroseconds())")
    }

    /// `STOPPING=1`: the service is shutting down.
    public static func stopping() {
        notify("STOPPING=1")
    }

    /// Puts a copy of `descriptor` in the service's file descriptor store under `name`
    /// (`FDSTORE=1`, `FDNAME=`, `sd_pid_notify_with_fds`): systemd keeps it open while the
    /// service restarts and passes it to the next process with the listening sockets
    /// (`listenDescriptors()`). Returns whether the message went to systemd: false unless
    /// this process is a systemd unit's (`INVOCATION_ID`, which systemd sets for every unit
    /// and a supervisor that only reads notifications, a test driver's `NOTIFY_SOCKET`, does
    /// not) with a `NOTIFY_SOCKET`. Whether systemd kept the descriptor it does not say: the
    /// unit needs `FileDescriptorStoreMax=` (0 by default, and then systemd closes it and
    /// logs why). `name`: printable ASCII without `:`, at most 255 characters.
    public static func store(_ descriptor: FileDescriptor, name: String) -> Bool {
        guard Environment.value("INVOCATION_ID") != nil else { return false }
        var raw = descriptor.rawValue
        return sd_pid_notify_with_fds(0, 0, "FDSTORE=1\nFDNAME=\(name)", &raw, 1) > 0
    }

    /// Closes every descriptor the service's store holds under `name` (`FDSTOREREMOVE=1`).
    public static func removeFromStore(name: String) {
        notify("FDSTOREREMOVE=1\nFDNAME=\(name)")
    }

    /// The descriptors systemd passed (`LISTEN_FDS` descriptors from 3 on, when `LISTEN_PID`
    /// is this process): the sockets of socket activation, each with its
    /// `FileDescriptorName=`, and the descriptors of the file descriptor store (`store`),
    /// each with its `FDNAME=` (`LISTEN_FDNAMES`; "unknown" without one), made close-on-exec, with `LISTEN_PID`, `LISTEN_FDS` and
    /// `LISTEN_FDNAMES` unset so children do not take them for theirs; none when not
    /// activated. Throws (`EINVAL`, `ERANGE`: libsystemd's rules, `LISTEN_FDS` a positive
    /// number) for variables systemd would not set, naming them.
    public static func listenDescriptors() throws(SystemError) -> [PassedDescriptor] {
        let variables = ["LISTEN_PID", "LISTEN_FDS"].compactMap { name in Environment.value(name).map { "\(name)=\($0)" } }
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
        let count = try SystemCall.negatedErrnoBlocking("sd_listen_fds_with_names (\(variables.joined(separator: " ")))") {
            sd_listen_fds_with_names(1, &names)
        }
        defer {
            if let names {
                for index in 0..<Int(count) { free(names[index]) }
                free(names)
            }
        }
        return (0..<Int(count)).map { index in
            PassedDescriptor(
                descriptor: FileDescriptor(rawValue: SD_LISTEN_FDS_START + Int32(index)),
                name: names?[index].map { String(cString: $0) } ?? "unknown")
        }
    }

    /// Whether `fd` is a listening `AF_UNIX` `SOCK_STREAM` socket.
    public static func isListeningUnixStream(_ fd: FileDescriptor) -> Bool {
        UnixSocket.kind(of: fd)?.isListeningUnixStream ?? false
    }
}

// The systemd watchdog (`WatchdogSec=`), as sd_watchdog_enabled(3) and sd_notify(3) document it.
extension ServiceManager {
    /// The watchdog interval systemd asks this process to keep (`WATCHDOG_USEC`,
    /// `sd_watchdog_enabled`); nil when it asks for none (the variable unset, or `WATCHDOG_PID`
    /// naming another process). The variables stay set. Throws `EINVAL`, naming the
    /// variables, when either is not a positive number (libsystemd's rule): a watchdog asked
    /// for and silently not kept would get the service killed.
    public static func watchdogInterval() throws(SystemError) -> Duration? {
        let variables = ["WATCHDOG_USEC", "WATCHDOG_PID"].compactMap { name in Environment.value(name).map { "\(name)=\($0)" } }
        var microseconds: UInt64 = 0
        let enabled = try SystemCall.negatedErrnoBlocking("sd_watchdog_enabled (\(variables.joined(separator: " ")))") {
            sd_watchdog_enabled(0, &microseconds)
        }
        return enabled > 0 ? .microseconds(microseconds) : nil
    }
}
