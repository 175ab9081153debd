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
