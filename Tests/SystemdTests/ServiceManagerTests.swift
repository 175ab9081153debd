import GestureTestSupport
import Glibc
import SystemCalls
import SystemPackage
import Testing

@testable import Systemd

/// What `gestured` and `gestured-web` tell systemd arrives as systemd reads it, through a
/// `NOTIFY_SOCKET` of the test's own. Serialized: `NOTIFY_SOCKET` is the process's. Other
/// suites' in-process daemons may notify while it is set; the messages here carry texts of
/// their own and are waited for by them.
@Suite(.serialized) struct ServiceManagerTests {
    /// Runs `body` with `NOTIFY_SOCKET` naming a fresh socket, and unsets it after.
    func withNotifySocket(_ body: (NotifySocket) throws -> Void) throws {
        let directory = TemporaryDirectory()
        let notify = try NotifySocket(path: directory.file("notify"))
        setenv("NOTIFY_SOCKET", notify.path, 1)
        defer { unsetenv("NOTIFY_SOCKET") }
        try body(notify)
    }

    @Test func readyCarriesTheStatus() throws {
        try withNotifySocket { notify in
            ServiceManager.ready(status: "service-manager-test ready")
            let ready = try notify.wait(for: "service-manager-test ready")
            #expect(ready == "READY=1\nSTATUS=service-manager-test ready")
            ServiceManager.status("service-manager-test status")
            let status = try notify.wait(for: "service-manager-test status")
            #expect(status == "STATUS=service-manager-test status")
        }
    }

    /// `Type=notify-reload` (systemd ≥ 253) needs `MONOTONIC_USEC` beside `RELOADING=1`.
    @Test func reloadingCarriesTheMonotonicTime() throws {
        try withNotifySocket { notify in
            ServiceManager.reloading()
            let message = try notify.wait(for: "RELOADING=1")
            let lines = message.split(separator: "\n")
            #expect(lines.first == "RELOADING=1")
            let time = try #require(lines.last?.split(separator: "=", maxSplits: 1))
            #expect(time.first == "MONOTONIC_USEC" && UInt64(time.last ?? "") != nil, "\(message)")
            ServiceManager.stopping()
            _ = try notify.wait(for: "STOPPING=1")
        }
    }

    @Test func withoutAManagerNothingIsSent() {
        unsetenv("NOTIFY_SOCKET")
        #expect(!ServiceManager.notify("STATUS=nobody listens"))
    }

    /// `gestured` refuses a socket from systemd that is not a listening Unix stream socket.
    @Test func onlyAListeningUnixStreamSocketIsTaken() throws {
        let directory = TemporaryDirectory()
        let datagram = try NotifySocket(path: directory.file("datagram"))
        #expect(!ServiceManager.isListeningUnixStream(datagram.socket))
        let stream = try UnixSocket.bind(.stream, to: directory.file("stream"))
        defer { try? stream.close() }
        #expect(!ServiceManager.isListeningUnixStream(stream), "bound, not listening yet")
        #expect(Glibc.listen(stream.rawValue, 1) == 0)
        #expect(ServiceManager.isListeningUnixStream(stream))
    }

    /// Without `LISTEN_FDS` there are no sockets from systemd.
    @Test func noListeningSocketsWithoutActivation() throws {
        unsetenv("LISTEN_FDS")
        #expect(try ServiceManager.listenDescriptors().isEmpty)
    }
}
