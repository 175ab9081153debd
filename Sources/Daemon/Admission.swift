import GestureCore
import GestureProtocol
import Glibc
import Logging
import SystemCalls
import SystemPackage
import Systemd

/// Who gets in: accepts connections on the listening socket, at most
/// `maximumAcceptsPerDispatch` per turn of the loop, and refuses those past `max-clients`
/// or outside `allowed-users` / `allowed-groups` with an `error` line (docs/protocol.md
/// "Limits and slow clients"). When `accept` runs out of descriptors (EMFILE, ENFILE) the
/// listener is not polled again until a client goes (`clientLeft`) or `acceptPause` has
/// passed: no spinning, and the log says so once.
final class Admission {
    /// Connections accepted per dispatch of the listener (the rest wait for the next turn).
    static let maximumAcceptsPerDispatch = 64
    /// How long accepting pauses when descriptors run out, unless a client goes first.
    static let acceptPause = TimeSpan.seconds(1)

    /// Whether the listener is polled now.
    private enum State {
        case accepting
        /// Out of descriptors: waiting for a client to go or for the pause to pass.
        case paused
        case stopped
    }

    private let loop: EventLoop
    private let listener: UnixListener
    private var watch: IOWatch?
    /// Resumes accepting after a pause for want of descriptors.
    private var timer: LoopTimer?
    private var state = State.accepting
    private var settings: DaemonSettings
    private let daemonState: DaemonState
    private let log: RateLimitedLogger
    /// Takes an admitted connection.
    private let admitted: (FileDescriptor, PeerCredentials?) -> Void
    /// How many clients are connected now.
    private let clientCount: () -> Int

    /// Starts accepting on `listener`.
    init(
        loop: EventLoop, listener: UnixListener, settings: DaemonSettings, state: DaemonState, log: RateLimitedLogger,
        clientCount: @escaping () -> Int, admitted: @escaping (FileDescriptor, PeerCredentials?) -> Void
    ) throws(SystemError) {
        self.loop = loop
        self.listener = listener
        self.settings = settings
        self.daemonState = state
        self.log = log
        self.clientCount = clientCount
        self.admitted = admitted
        watch = try loop.watch(listener.socket, events: .readable) { [unowned self] _ in acceptAll() }
        timer = try loop.timer { [unowned self] _ in resume() }
    }

    /// New limits and allow-lists apply to the next connection.
    func apply(_ settings: DaemonSettings) {
        self.settings = settings
    }

    /// A client went: a descriptor just freed, so a pause ends.
    func clientLeft() {
        resume()
    }

    /// Accepts no more connections.
    func stopAccepting() {
        state = .stopped
        watch?.cancel()
        timer?.cancel()
    }

    /// Closes the listener (removing the socket file the daemon made).
    func closeListener() {
        listener.close()
    }

    private func acceptAll() {
        for _ in 0..<Self.maximumAcceptsPerDispatch {
            let accepted: IOResult<FileDescriptor>
            do {
                accepted = try UnixSocket.accept(from: listener.socket)
            } catch {
                switch error.errno {
                case .connectionAbort, .protocolError, .notPermitted:
                    continue  // that connection is gone (or refused by a security module): the next may be fine
                default:
                    // EMFILE, ENFILE, ENOBUFS, ENOMEM or worse: the listener would stay
                    // readable and be retried at once, forever. Stop polling it until a
                    // client goes (a descriptor frees) or the pause has passed.
                    pause(error)
                    return
                }
            }
            switch accepted {
            case .wouldBlock:
                return
            case .processed(let fd):
                admit(fd)
            }
        }
    }

    private func admit(_ fd: FileDescriptor) {
        let credentials = UnixSocket.peerCredentials(fd)
        if clientCount() >= settings.maxClients {
            daemonState.counters.rejected += 1
            log.log(.notice, "refusing client: limit reached", ["limit": "\(settings.maxClients)"])
            refuse(fd, .error(message: "too many clients (limit \(settings.maxClients))"))
            return
        }
        if !isAllowed(credentials) {
            daemonState.counters.rejected += 1
            log.log(.notice, "refusing client: not allowed", ["uid": "\(credentials.map { "\($0.uid)" } ?? "?")"])
            refuse(fd, .error(message: "permission denied"))
            return
        }
        admitted(fd, credentials)
    }

    /// Says why, if the socket takes it now, and closes.
    private func refuse(_ fd: FileDescriptor, _ message: ServerMessage) {
        _ = try? UnixSocket.send(fd, WireEncoder.encode(message), nonBlocking: true)
        try? fd.close()
    }

    private func isAllowed(_ credentials: PeerCredentials?) -> Bool {
        if settings.allowedUsers.isEmpty && settings.allowedGroups.isEmpty { return true }
        guard let credentials else { return false }
        return settings.allowedUsers.contains(credentials.uid) || settings.allowedGroups.contains(credentials.gid)
    }

    private func pause(_ error: SystemError) {
        guard case .accepting = state else { return }
        state = .paused
        log.log(.warning, "cannot accept connections: pausing until a client goes or for a second", ["error": "\(error)"])
        do {
            try watch?.setEnabled(false)
        } catch {
            log.log(.error, "cannot pause accepting", ["error": "\(error)"])
        }
        armTimer()
    }

    private func armTimer() {
        do {
            try timer?.schedule(at: loop.now + Self.acceptPause)
        } catch {
            log.log(.error, "cannot arm the accept timer: accepting resumes when a client goes", ["error": "\(error)"])
        }
    }

    private func resume() {
        guard case .paused = state else { return }
        do {
            try watch?.setEnabled(true)
        } catch {
            log.log(.error, "cannot resume accepting: trying again in a second", ["error": "\(error)"])
            armTimer()
            return
        }
        state = .accepting
        do {
            try timer?.schedule(at: nil)
        } catch {
            log.log(.warning, "cannot disarm the accept timer", ["error": "\(error)"])  // its firing then does nothing
        }
    }
}
