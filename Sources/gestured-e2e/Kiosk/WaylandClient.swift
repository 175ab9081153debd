import Foundation
import Glibc
import SystemCalls
import SystemPackage

/// One `wl_touch` event as the Wayland client (wev) printed it. Coordinates are kept as
/// printed (wev's `%f` of a `wl_fixed`): two runs agree "to the client's precision" when
/// the texts are equal.
struct ClientTouch {
    enum Kind: String { case down, motion, up, cancel }
    let kind: Kind
    /// The touch id; nil for `cancel` (it cancels every touch).
    let id: Int32?
    let x: String?
    let y: String?
    /// CLOCK_MONOTONIC µs when the driver read the line from the pipe.
    let receivedAt: UInt64

    /// Parses one line of wev's output, e.g.
    /// `[15:        wl_touch] down: serial: 10; time: 25838; surface: 3; id: 0; x, y: 640.000000, 360.000000`;
    /// nil for any other line (`frame` included: cage 0.1.4 sends none, so it is not compared).
    /// Also returns the `wl_touch` object's number: wev binds a second `wl_touch` when the
    /// seat's capabilities change (a device with pointer buttons appears) and prints every
    /// touch event once per object.
    static func parse(_ line: Substring, receivedAt: UInt64) -> (object: Int, touch: ClientTouch)? {
        guard line.hasPrefix("["), let colon = line.firstIndex(of: ":"), let close = line.firstIndex(of: "]"),
            line[line.index(after: colon)..<close].trimmingCharacters(in: .whitespaces) == "wl_touch",
            let object = Int(line[line.index(after: line.startIndex)..<colon])
        else { return nil }
        let rest = line[line.index(after: close)...].drop(while: { $0 == " " })
        let name = rest.prefix(while: { $0 != ":" && $0 != " " })
        guard let kind = Kind(rawValue: String(name)) else { return nil }
        var id: Int32?
        var x: String?
        var y: String?
        for field in rest.split(separator: ";") {
            let trimmed = field.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("id: ") {
                id = Int32(trimmed.dropFirst(4))
            } else if let range = trimmed.range(of: "x, y: ") {
                let pair = trimmed[range.upperBound...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2 { (x, y) = (pair[0], pair[1]) }
            }
        }
        if kind != .cancel && id == nil { return nil }
        return (object, ClientTouch(kind: kind, id: id, x: x, y: y, receivedAt: receivedAt))
    }
}

/// What a Wayland client printed, read through a FIFO it writes its standard output to
/// (`stdbuf -oL wev > FIFO`), each line stamped with CLOCK_MONOTONIC as it is read. Keeps
/// the `wl_touch` events of the first `wl_touch` object and which touch ids the client has
/// down (a `down` adds its id, an `up` removes it, a `cancel` clears them all).
final class WaylandClientLog {
    let path: String
    private let readEnd: Int32
    /// Held open so the FIFO never reports a hang-up when the client exits (or has not
    /// opened it yet): a poll loop would spin.
    private let writeEnd: Int32
    private var buffer: [UInt8] = []
    private var touchObject: Int?
    private(set) var touches: [ClientTouch] = []
    private(set) var down: Set<Int32> = []
    /// Whether the client's toplevel has been configured `activated` (it has the focus).
    private(set) var activated = false
    /// The last lines read, for failure messages.
    private(set) var recentLines: [String] = []

    init(fifo path: String) throws(CaseFailure) {
        self.path = path
        RegularFile.remove(path: path)
        do {
            try SystemCall.posixBlocking("mkfifo", path: path) { mkfifo(path, 0o666) }
            try SystemCall.posixBlocking("chmod", path: path) { chmod(path, 0o666) }
        } catch {
            throw CaseFailure("mkfifo \(path): \(errorText(error.errno.rawValue))")
        }
        // Non-blocking: the read end opens with no writer yet, and then the write end with it.
        do {
            readEnd = try SystemCall.posixBlocking("open", path: path) { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        } catch {
            throw CaseFailure("open \(path): \(errorText(error.errno.rawValue))")
        }
        do {
            writeEnd = try SystemCall.posixBlocking("open", path: path) { open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC) }
        } catch {
            throw CaseFailure("open \(path): \(errorText(error.errno.rawValue))")
        }
    }

    deinit {
        try? FileDescriptor(rawValue: readEnd).close()
        try? FileDescriptor(rawValue: writeEnd).close()
        RegularFile.remove(path: path)
    }

    /// Waits up to `milliseconds` for output (and for `subscriber`'s socket, which is read
    /// too so the daemon never queues for it), then reads everything available.
    func pump(milliseconds: Int32, alongside subscriber: Subscriber? = nil) {
        var descriptors = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
        if let subscriber { descriptors.append(pollfd(fd: subscriber.socket.rawValue, events: Int16(POLLIN), revents: 0)) }
        _ = try? Polling.poll(&descriptors, timeoutMilliseconds: milliseconds)
        subscriber?.receive(timeout: 0)
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            guard case .processed(let n)? = try? Polling.read(FileDescriptor(rawValue: readEnd), into: &chunk), n > 0 else { break }
            let receivedAt = monotonicMicroseconds()
            buffer += chunk[..<n]
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                take(line, receivedAt: receivedAt)
            }
        }
    }

    private func take(_ line: String, receivedAt: UInt64) {
        recentLines.append(line)
        if recentLines.count > 40 { recentLines.removeFirst(recentLines.count - 40) }
        if line.contains("activated") { activated = true }
        guard let (object, touch) = ClientTouch.parse(Substring(line), receivedAt: receivedAt) else { return }
        if touchObject == nil { touchObject = object }
        guard object == touchObject else { return }
        touches.append(touch)
        switch touch.kind {
        case .down: if let id = touch.id { down.insert(id) }
        case .up: if let id = touch.id { down.remove(id) }
        case .cancel: down.removeAll()
        case .motion: break
        }
    }

    /// Reads until `condition` holds; fails after `timeout` seconds (a liveness bound: the
    /// verdict is what arrived, never how fast).
    func wait(_ what: String, timeout: Double = 15, alongside subscriber: Subscriber? = nil, until condition: () -> Bool)
        throws(CaseFailure)
    {
        let deadline = monotonicMicroseconds() + UInt64(timeout * 1_000_000)
        while !condition() {
            let now = monotonicMicroseconds()
            guard now < deadline else {
                throw CaseFailure(
                    "the Wayland client did not get \(what) within \(Int(timeout)) s; its last touch events: \(describe(touches.suffix(8)))"
                )
            }
            pump(milliseconds: Int32(min(200, (deadline - now) / 1000 + 1)), alongside: subscriber)
        }
    }

    /// Reads whatever arrives for `milliseconds`.
    func settle(milliseconds: Double, alongside subscriber: Subscriber? = nil) {
        let deadline = monotonicMicroseconds() + UInt64(milliseconds * 1000)
        while true {
            let now = monotonicMicroseconds()
            guard now < deadline else { return }
            pump(milliseconds: Int32(max(1, (deadline - now) / 1000)), alongside: subscriber)
        }
    }

    /// The touch events from index `mark` on.
    func touches(since mark: Int) -> ArraySlice<ClientTouch> { touches[min(mark, touches.count)...] }

    /// How many events of `kind` arrived from index `mark` on.
    func count(_ kind: ClientTouch.Kind, since mark: Int) -> Int { touches(since: mark).filter { $0.kind == kind }.count }
}

/// Touch events as comparable text: kind, the id renumbered by first appearance (0, 1, …),
/// and the coordinates as the client printed them.
func clientSequence(_ touches: some Collection<ClientTouch>) -> [String] {
    var ids: [Int32: Int] = [:]
    return touches.map { touch in
        var text = touch.kind.rawValue
        if let id = touch.id {
            if ids[id] == nil { ids[id] = ids.count }
            text += " \(ids[id]!)"
        }
        if let x = touch.x, let y = touch.y { text += " \(x),\(y)" }
        return text
    }
}

/// A few touch events in words, for failure messages.
func describe(_ touches: some Collection<ClientTouch>) -> String {
    "[" + clientSequence(touches).joined(separator: "; ") + "]"
}
