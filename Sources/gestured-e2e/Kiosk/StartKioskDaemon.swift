import GestureTestSupport
import Glibc
import SystemCalls

/// Starts the kiosk tier's gestured with the configuration file at `config`, subscribes,
/// and waits until the daemon has each of `panels` (its `device added` line, unless the
/// hello lists it) and each panel's pass-through clone exists, reading `client` meanwhile.
/// Those waits end at the event (a hang only at `hangBound`), whatever the host's load.
/// Whether a touch through a clone reaches the client is the caller's to probe: the
/// compositor opens a clone some time after it appears. On a failure the daemon is stopped
/// (`DaemonProcess` stops it when released) and the failure carries its log's last lines.
/// `hidingDisplay`: gestured runs in a mount namespace of its own where `/sys/class/drm` is
/// empty, as on a machine whose display has no DRM connector: it cannot read the display's
/// power. `socketGroup`: the group the socket is given once it exists, as the package's
/// `gestured.socket` gives it `gestured` (the kiosk user's group), for a configuration that
/// names none.
func startKioskDaemon(
    _ cases: KioskCases, config: String, panels: [TouchPanel], pumping client: some KioskClient, hidingDisplay: Bool = false,
    socketGroup: gid_t? = nil
) throws(CaseFailure) -> (daemon: DaemonProcess, subscriber: Subscriber) {
    let launcher =
        hidingDisplay
        ? ["/usr/bin/unshare", "--mount", "/bin/sh", "-c", "mount -t tmpfs none /sys/class/drm && exec \"$0\" \"$@\""] : []
    let daemon = try DaemonProcess(
        executable: cases.gestured, config: config, socketPath: cases.daemonSocket, logPath: "\(cases.work)/kiosk-gestured.log",
        launcher: launcher)
    do {
        let subscriber = try Subscriber(socketPath: daemon.socketPath)
        if let socketGroup {
            let socket = daemon.socketPath
            do {
                try SystemCall.posixBlocking("chown", path: socket) { chown(socket, uid_t.max, socketGroup) }
            } catch {
                throw CaseFailure("cannot give \(socket) the group \(socketGroup): \(errorText(error.errno.rawValue))")
            }
        }
        let hello = try subscriber.subscribe()
        for panel in panels {
            if !hello.devices.contains(where: { $0.name == panel.name }) {
                try awaitDevice(subscriber, panel.name, .added, timeout: hangBound)
            }
            _ = try cloneNodeOf(panel, timeout: hangBound, pumping: client, alongside: subscriber)
        }
        return (daemon, subscriber)
    } catch {
        throw CaseFailure("\(error); gestured log (\(daemon.logPath)): \(tail(daemon.logPath, lines: 15))")
    }
}
