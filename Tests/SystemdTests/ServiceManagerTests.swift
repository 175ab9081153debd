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

    /// `NOTIFY_SOCKET` is a path or `@abstract`; anything else is not systemd's and is not used.
    @Test func notifySocketValues() throws {
        #expect(ServiceManager.notifyAddress("/run/systemd/notify") == (try UnixSocketAddress("/run/systemd/notify")))
        let abstract = try #require(ServiceManager.notifyAddress("@gestured/test"))
        #expect(abstract.isAbstract && abstract.path == "gestured/test" && abstract.description == "@gestured/test")
        for value in ["", "@", "run/notify", "vsock:2:1234", "/" + String(repeating: "x", count: 200)] {
            #expect(ServiceManager.notifyAddress(value) == nil, "\(value)")
        }
        #expect(!ServiceManager.notify("READY=1", socket: "relative/path"))
        #expect(!ServiceManager.notify("READY=1", socket: nil))
    }

    /// systemd may name an abstract socket (`@…`, as in a container's manager): the
    /// notification arrives there, through a real socket in the abstract namespace.
    @Test func notifiesAnAbstractSocket() throws {
        let name = "gestured-test-notify-\(Subprocess.currentID)"
        let receiver = try UnixSocket.make(.datagram, nonBlocking: true)
        defer { try? receiver.close() }
        try UnixSocketAddress(abstractName: name).bind(receiver)
        #expect(ServiceManager.notify("STATUS=abstract", socket: "@" + name))
        #expect(waitReadable(receiver, milliseconds: defaultWaitMilliseconds))
        var buffer = [UInt8](repeating: 0, count: 64)
        guard case .processed(let count) = try UnixSocket.receive(receiver, into: &buffer) else {
            Issue.record("nothing arrived")
            return
        }
        #expect(String(decoding: buffer[..<count], as: UTF8.self) == "STATUS=abstract")
    }

    /// sd_listen_fds(3)'s rules: descriptors only for the process `LISTEN_PID` names.
    @Test func listenVariables() throws {
        #expect(try ServiceManager.listenDescriptorCount(pid: nil, fds: "2", ownPID: 40) == 0, "not activated")
        #expect(try ServiceManager.listenDescriptorCount(pid: "41", fds: "2", ownPID: 40) == 0, "a parent's, inherited")
        #expect(try ServiceManager.listenDescriptorCount(pid: "40", fds: "2", ownPID: 40) == 2)
        #expect(try ServiceManager.listenDescriptorCount(pid: "40", fds: "0", ownPID: 40) == 0)
        #expect(try ServiceManager.listenDescriptorCount(pid: "40", fds: nil, ownPID: 40) == 0)
        for (pid, fds) in [("x", "1"), ("0", "1"), ("-40", "1"), ("40", "-1"), ("40", "two"), ("40", ""), ("40", "99999999999")] {
            #expect(throws: SystemError.self, "LISTEN_PID=\(pid) LISTEN_FDS=\(fds)") {
                try ServiceManager.listenDescriptorCount(pid: pid, fds: fds, ownPID: 40)
            }
        }
    }

    /// Activated: the descriptors systemd passed are returned close-on-exec, and the variables
    /// are gone so a child does not take them for its own.
    @Test func listenDescriptorsAreTakenOnce() throws {
        let directory = TemporaryDirectory()
        let listener = try UnixSocket.bind(.stream, to: directory.file("listen"))
        defer { try? listener.close() }
        #expect(Glibc.listen(listener.rawValue, 1) == 0)
        // Numbered from the test's own descriptor: descriptor 3, where systemd puts the first,
        // belongs to whatever else runs in this process.
        #expect(Glibc.fcntl(listener.rawValue, F_SETFD, 0) == 0, "inherited: not close-on-exec")
        setenv("LISTEN_PID", "\(Subprocess.currentID)", 1)
        setenv("LISTEN_FDS", "1", 1)
        setenv("LISTEN_FDNAMES", "gestured.socket", 1)
        let descriptors = try ServiceManager.listenDescriptors(startingAt: listener.rawValue)
        #expect(descriptors == [listener])
        #expect(ServiceManager.isListeningUnixStream(listener))
        #expect(Glibc.fcntl(listener.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        #expect(Environment.value("LISTEN_PID") == nil && Environment.value("LISTEN_FDS") == nil)
        #expect(Environment.value("LISTEN_FDNAMES") == nil)
        #expect(try ServiceManager.listenDescriptors().isEmpty, "a second call finds none")
    }

    /// Without `LISTEN_FDS` there are no sockets from systemd.
    @Test func noListeningSocketsWithoutActivation() throws {
        unsetenv("LISTEN_FDS")
        #expect(try ServiceManager.listenDescriptors().isEmpty)
    }
}
