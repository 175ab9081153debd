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

    /// A pass-through clone's descriptor goes to the store with its name, and leaves it by
    /// that name; what systemd does with them the systemd tier shows.
    @Test func storingAndRemovingADescriptorNameIt() throws {
        let ends = try Subprocess.pipe()
        defer {
            try? ends.read.close()
            try? ends.write.close()
        }
        try withNotifySocket { notify in
            #expect(!ServiceManager.store(ends.read, name: "gestured-clone-event5-test"), "not a systemd unit: nothing keeps it")
            setenv("INVOCATION_ID", "0123456789abcdef0123456789abcdef", 1)
            defer { unsetenv("INVOCATION_ID") }
            #expect(ServiceManager.store(ends.read, name: "gestured-clone-event5-test"))
            let stored = try notify.wait(for: "FDNAME=gestured-clone-event5-test")
            #expect(stored == "FDSTORE=1\nFDNAME=gestured-clone-event5-test")
            ServiceManager.removeFromStore(name: "gestured-clone-event5-test")
            let removed = try notify.wait(for: "FDSTOREREMOVE=1")
            #expect(removed == "FDSTOREREMOVE=1\nFDNAME=gestured-clone-event5-test")
        }
        setenv("INVOCATION_ID", "0123456789abcdef0123456789abcdef", 1)
        defer { unsetenv("INVOCATION_ID") }
        #expect(!ServiceManager.store(ends.read, name: "gestured-clone-event5-test"), "no NOTIFY_SOCKET: nothing keeps it")
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

    /// `NOTIFY_SOCKET` is a path or `@abstract`; libsystemd sends nothing for anything else.
    @Test func notifySocketValuesSystemdWouldNotSetAreRefused() throws {
        for value in ["", "@", "run/notify"] {
            setenv("NOTIFY_SOCKET", value, 1)
            #expect(!ServiceManager.notify("STATUS=refused"), "\(value)")
        }
        unsetenv("NOTIFY_SOCKET")
    }

    /// systemd may name an abstract socket (`@…`, as in a container's manager): the
    /// notification arrives there, through a real socket in the abstract namespace.
    @Test func notifiesAnAbstractSocket() throws {
        let name = "gestured-test-notify-\(Subprocess.currentID)"
        let receiver = try UnixSocket.make(.datagram, nonBlocking: true)
        defer { try? receiver.close() }
        try UnixSocketAddress(abstractName: name).bind(receiver)
        setenv("NOTIFY_SOCKET", "@" + name, 1)
        defer { unsetenv("NOTIFY_SOCKET") }
        ServiceManager.status("abstract")
        #expect(waitReadable(receiver, milliseconds: defaultWaitMilliseconds))
        var buffer = [UInt8](repeating: 0, count: 64)
        guard case .processed(let count) = try UnixSocket.receive(receiver, into: &buffer) else {
            Issue.record("nothing arrived")
            return
        }
        #expect(String(decoding: buffer[..<count], as: UTF8.self) == "STATUS=abstract")
    }

    /// Sets the socket-activation variables for one `listenDescriptors()` call.
    func listenDescriptors(pid: String?, fds: String?) throws(SystemError) -> [PassedDescriptor] {
        for (name, value) in [("LISTEN_PID", pid), ("LISTEN_FDS", fds), ("LISTEN_FDNAMES", "gestured.socket")] {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        return try ServiceManager.listenDescriptors()
    }

    /// sd_listen_fds(3)'s rules: descriptors only for the process `LISTEN_PID` names; the
    /// variables are unset after the first look, whatever it found, so a child does not take
    /// them for its own. (Descriptors passed for real, from 3 on: ProgramTests run
    /// `gestured` and `gestured-web` under `systemd-socket-activate`.)
    @Test func listenVariablesForNoneOrAnotherProcess() throws {
        #expect(try listenDescriptors(pid: nil, fds: "2").isEmpty, "not activated")
        #expect(try listenDescriptors(pid: "\(Subprocess.currentID + 1)", fds: "2").isEmpty, "a parent's, inherited")
        #expect(Environment.value("LISTEN_PID") == nil && Environment.value("LISTEN_FDS") == nil)
        #expect(Environment.value("LISTEN_FDNAMES") == nil)
        #expect(try listenDescriptors(pid: "\(Subprocess.currentID)", fds: nil).isEmpty)
    }

    /// Values systemd would not set are an error naming them, and are unset all the same.
    @Test(arguments: [
        ("x", "1"), ("0", "1"), ("-40", "1"), ("self", "-1"), ("self", "two"), ("self", ""), ("self", "0"), ("self", "99999999999"),
    ])
    func malformedListenVariables(pid: String, fds: String) throws {
        let pid = pid == "self" ? "\(Subprocess.currentID)" : pid
        let error = #expect(throws: SystemError.self) { try listenDescriptors(pid: pid, fds: fds) }
        let refusals: Set<Errno> = [.invalidArgument, .outOfRange]
        #expect(error.map { refusals.contains($0.errno) } == true, "\(String(describing: error))")
        #expect(error?.call.contains("LISTEN_PID=\(pid) LISTEN_FDS=\(fds)") == true, "\(String(describing: error))")
        #expect(Environment.value("LISTEN_PID") == nil && Environment.value("LISTEN_FDS") == nil)
    }

    /// Without `LISTEN_FDS` there are no sockets from systemd.
    @Test func noListeningSocketsWithoutActivation() throws {
        unsetenv("LISTEN_FDS")
        #expect(try ServiceManager.listenDescriptors().isEmpty)
    }
}
