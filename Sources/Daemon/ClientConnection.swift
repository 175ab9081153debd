import GestureCore
import GestureProtocol
import Glibc
import Logging
import SystemCalls
import SystemPackage
import Systemd

/// One connection's output and input: its `DeliveryQueue` (docs/protocol.md "Limits and
/// slow clients"), the bytes on their way into its socket, its per-connection `seq`, and
/// the request lines it sends (framed by `LineFramer`, at most `maxLineLength` bytes).
///
/// Events wait in the queue; `flush` moves them into `output` (numbering them, after an
/// `overflow` notice when some were dropped) and writes as much as the socket takes. Nothing
/// blocks: a socket that says it is full is not written to again until it is writable.
final class ClientConnection {
    /// The longest request line accepted; a longer one is an error and a close.
    static let maxLineLength = 64 * 1024
    /// Bytes moved from the queue into the socket buffer per refill.
    static let refillBytes = 64 * 1024
    /// The output buffer's capacity kept once everything is sent: a frame's lines (ten
    /// touch lines and a few gestures are about 3 KiB) reuse it instead of growing a new
    /// buffer every frame; a larger one, grown in a burst, is given back.
    static let retainedOutputBytes = 4 * 1024

    /// A line for this client: an event whose `seq` is written as it goes out, or an
    /// encoded reply.
    enum Line {
        case event(EventLine)
        case encoded([UInt8])
    }

    /// What the output side is doing.
    enum Output: Equatable {
        /// Not in the owner's list and not waiting for the socket: new output schedules a flush.
        case idle
        /// In the owner's list of clients to flush before the loop next waits.
        case scheduled
        /// The socket said it was full (EAGAIN): nothing is written until it is writable.
        case blocked
    }

    /// The connection's one state.
    enum State: Equatable {
        /// Open; `reading` is false once the client half-closed (it may still read events).
        case open(reading: Bool, output: Output)
        case closed
    }

    let id: UInt64
    let fd: FileDescriptor
    let credentials: PeerCredentials?
    private unowned let owner: any ClientConnectionOwner
    /// The owner's budget and the daemon's state, held directly: they are used for every
    /// line, and reaching them through the unowned existential `owner` cost a strong retain
    /// and a witness call each time.
    private let budget: DeliveryBudget
    private let daemonState: DaemonState
    private(set) var state = State.open(reading: true, output: .idle)
    var watch: IOWatch?
    private var watchedEvents: IOEvents = .readable
    var subscription = Subscription()
    private var framer = LineFramer(maximumLength: ClientConnection.maxLineLength)
    private var queue: DeliveryQueue<Line>
    /// Bytes ready for the socket (numbered events and replies), from `outputOffset`.
    private var output: [UInt8] = []
    private var outputOffset = 0
    /// The event lines in `output` not fully sent yet, for the delivery latency.
    private var unsentLines = UnsentLines()
    /// The last seq sent.
    private var seq: UInt64 = 0

    init(id: UInt64, fd: FileDescriptor, credentials: PeerCredentials?, limits: DeliveryLimits, owner: any ClientConnectionOwner) {
        self.id = id
        self.fd = fd
        self.credentials = credentials
        self.owner = owner
        budget = owner.budget
        daemonState = owner.state
        queue = DeliveryQueue(limits: limits)
    }

    var isClosed: Bool { state == .closed }

    private var outputState: Output {
        if case .open(_, let output) = state { return output }
        return .idle
    }

    private var isBlocked: Bool { outputState == .blocked }

    private func setOutput(_ new: Output) {
        if case .open(let reading, _) = state { state = .open(reading: reading, output: new) }
    }

    private var pendingOutput: Int { output.count - outputOffset }

    /// What this client holds of `queue-memory`.
    var bufferedBytes: Int { queue.heldBytes + pendingOutput }

    private var isOverShare: Bool { budget.isOverShare(bufferedBytes) }

    // MARK: Lines in

    /// Queues an event line; under pressure the slow-client policy applies.
    func enqueue(_ event: EventLine) {
        guard !isClosed else { return }
        var overShare = isOverShare
        if queue.isFull(overShare: overShare) {
            // The queue holds what the socket would not take: try the socket first. With
            // `disconnect` (irreversible) even one that said it was full: a client that
            // reads, only slower than a burst, may have made room since.
            if queue.limits.policy == .disconnect, isBlocked { setOutput(.idle) }
            flush()
            if isClosed { return }
            overShare = isOverShare
        }
        arrive(.event(event), kind: .event, size: event.byteCount, overShare: overShare)
    }

    /// Queues a reply (never dropped; a client that leaves too many unread is closed).
    func reply(_ message: ServerMessage) {
        guard !isClosed else { return }
        let line = WireEncoder.encode(message)
        arrive(.encoded(line), kind: DeliveryKind(line: line), size: line.count, overShare: isOverShare)
    }

    /// `overShare`: `isOverShare` now (the caller has it already).
    private func arrive(_ line: Line, kind: DeliveryKind, size: Int, overShare: Bool) {
        let before = queue.heldBytes
        let writable = !isBlocked && output.count < budget.refillLimit
        let arrival = queue.arrived(line, kind: kind, size: size, writable: writable, overShare: overShare)
        budget.changed(by: queue.heldBytes - before)
        switch arrival {
        case .send(let line):
            if kind == .event { daemonState.counters.sent += 1 }
            let before = output.count
            write(line)
            budget.changed(by: output.count - before)
            scheduleFlush()
        case .held(let dropping):
            if kind == .event { daemonState.counters.sent += 1 }
            daemonState.counters.dropped += UInt64(dropping)
            scheduleFlush()
        case .dropped(let older):
            daemonState.counters.dropped += UInt64(older) + 1
        case .disconnect(let reason):
            if kind == .event { daemonState.counters.slowDisconnects += 1 }
            owner.log.log(.notice, "disconnecting slow client", metadata(["reason": "\(reason)"]))
            close(farewell: WireEncoder.encode(.goodbye(reason: reason)))
        case .ignored:
            break
        }
    }

    /// Appends one line to `output`, an event with the next `seq`.
    private func write(_ line: Line) {
        switch line {
        case .event(let event):
            seq += 1
            event.append(seq: seq, to: &output)
            if let time = event.inputTime {
                unsentLines.append(end: output.count, inputTime: time)
            }
        case .encoded(let bytes):
            output.append(contentsOf: bytes)
        }
    }

    private func scheduleFlush() {
        guard outputState == .idle else { return }  // scheduled already, or flushed when writable
        setOutput(.scheduled)
        owner.scheduleFlush(self)
    }

    // MARK: Writing

    /// The owner's turn to flush this client (it was scheduled).
    func flushScheduled() {
        guard outputState == .scheduled else { return }
        setOutput(.idle)
        flush()
    }

    /// Writes as much as the socket takes; watches for `.writable` only while output
    /// remains. Does nothing while the socket is known to be full.
    func flush() {
        guard !isClosed, !isBlocked else { return }
        while true {
            if outputOffset == output.count {
                outputOffset = 0
                if queue.isFlowing {
                    // Caught up: a burst's buffer is given back (it must not pin 64 KiB per
                    // client), a frame's is kept for the next frame.
                    if output.capacity > Self.retainedOutputBytes {
                        output = []
                    } else {
                        output.removeAll(keepingCapacity: true)
                    }
                    break
                }
                output.removeAll(keepingCapacity: true)
                refill()
                if output.isEmpty { break }
            }
            let result: IOResult<Int>
            do {
                result = try UnixSocket.send(fd, output, from: outputOffset, nonBlocking: true)
            } catch {
                owner.log.log(.debug, "client write failed", metadata(["error": "\(error)"]))
                close(farewell: nil)
                return
            }
            switch result {
            case .wouldBlock:
                setOutput(.blocked)
                if outputOffset > output.count / 2 {
                    output.removeSubrange(..<outputOffset)
                    unsentLines.shift(by: outputOffset)
                    outputOffset = 0
                }
                updateInterest()
                return
            case .processed(let count):
                outputOffset += count
                budget.changed(by: -count)
                recordDeliveries()
            }
        }
        updateInterest()
    }

    /// Moves held lines into the output buffer, the overflow notice first (`seq` then
    /// skips the dropped events, as docs/protocol.md says, so the gap is visible in the
    /// numbers too). Past the budget, a stalled client's unsent bytes stay within its share.
    private func refill() {
        let before = output.count
        let heldBefore = queue.heldBytes
        let limit = budget.refillLimit
        while output.count < limit, let next = queue.next() {
            switch next {
            case .overflow(let dropped):
                WireEncoder.append(.overflow(dropped: dropped), to: &output)
                seq += dropped
            case .line(let line, _):
                write(line)
            }
        }
        budget.changed(by: output.count - before + queue.heldBytes - heldBefore)
    }

    /// Records the delivery latency of the event lines the last `send` completed.
    private func recordDeliveries() {
        guard unsentLines.hasLine(endingBy: outputOffset) else { return }
        let now = monotonicMicroseconds()
        while let time = unsentLines.popLine(endingBy: outputOffset) {
            daemonState.metrics.recordLatency(now - min(now, time.microseconds))
        }
    }

    private func updateInterest() {
        guard case .open(let reading, _) = state else { return }
        var events: IOEvents = reading ? .readable : []
        if pendingOutput > 0 || !queue.isFlowing { events.insert(.writable) }
        guard events != watchedEvents else { return }
        do {
            try watch?.setEvents(events)
            watchedEvents = events
        } catch {
            // Its socket can no longer be watched as its output needs: let it go.
            owner.log.log(.error, "cannot watch client, closing it", metadata(["error": "\(error)"]))
            close(farewell: nil)
        }
    }

    // MARK: Reading

    /// The socket is readable, writable or hung up (`revents`); returns the request lines
    /// that arrived, for the owner to answer.
    func handle(revents: IOEvents, readBuffer: inout [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        if revents.contains(.readable) {
            lines = read(into: &readBuffer)
        }
        if !isClosed, revents.contains(.writable) {
            if isBlocked { setOutput(.idle) }
            flush()
        }
        if !isClosed, !revents.isDisjoint(with: [.hangUp, .error]), !revents.contains(.readable) {
            owner.log.log(.debug, "client hung up", metadata())
            close(farewell: nil)
        }
        return lines
    }

    private func read(into buffer: inout [UInt8]) -> [[UInt8]] {
        let result: IOResult<Int>
        do {
            result = try UnixSocket.receive(fd, into: &buffer)
        } catch {
            owner.log.log(.debug, "client read failed", metadata(["error": "\(error)"]))
            close(farewell: nil)
            return []
        }
        switch result {
        case .wouldBlock:
            return []
        case .processed(0):
            // Half-closed: the client sends no more requests but may still read events.
            if case .open(_, let output) = state { state = .open(reading: false, output: output) }
            updateInterest()
            return []
        case .processed(let count):
            do {
                let lines = try framer.append(buffer[0..<count])
                // A line completed in this read may be longer than a partial one may grow.
                if lines.contains(where: { $0.count > Self.maxLineLength }) { throw LineFramer.LineTooLong(limit: Self.maxLineLength) }
                return lines
            } catch {
                owner.log.log(.notice, "closing client: request line too long", metadata())
                close(farewell: WireEncoder.encode(.error(message: "request line longer than \(Self.maxLineLength) bytes")))
                return []
            }
        }
    }

    // MARK: Closing

    /// Closes the connection, first trying once to send `farewell` after its pending
    /// output (a line may be half sent): the farewell only if all of it went. Never blocks.
    func close(farewell: [UInt8]?) {
        guard !isClosed else { return }
        if let farewell {
            let pending = pendingOutput
            let sent =
                pending == 0
                ? IOResult<Int>.processed(0)
                : try? UnixSocket.send(fd, output, from: outputOffset, nonBlocking: true)
            if case .processed(pending)? = sent {
                _ = try? UnixSocket.send(fd, farewell, nonBlocking: true)
            }
        }
        budget.changed(by: -bufferedBytes)
        state = .closed
        queue.close()
        output = []
        outputOffset = 0
        watch?.cancel()
        watch = nil
        try? fd.close()
        owner.closed(self)
    }

    func metadata(_ extra: Logger.Metadata = [:]) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["client": "\(id)"]
        if let credentials {
            metadata["pid"] = "\(credentials.pid)"
            metadata["uid"] = "\(credentials.uid)"
        }
        return metadata.merging(extra) { $1 }
    }
}
