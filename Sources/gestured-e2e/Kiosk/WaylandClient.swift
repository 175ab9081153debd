import Foundation
import Glibc
import SystemCalls

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

/// What wev printed, read through a FIFO it writes its standard output to (`stdbuf -oL wev >
/// FIFO`). Keeps the `wl_touch` events of the first `wl_touch` object and which touch ids
/// the client has down (a `down` adds its id, an `up` removes it, a `cancel` clears them
/// all). Ready once its toplevel is configured `activated` (wev never prints `enter`).
final class WaylandClientLog: KioskClient {
    private let fifo: LineFifo
    private var touchObject: Int?
    private(set) var touches: [ClientTouch] = []
    private(set) var down: Set<Int32> = []
    /// Whether the client's toplevel has been configured `activated` (it has the focus).
    private(set) var activated = false
    /// The last lines read, for failure messages.
    private(set) var recentLines: [String] = []

    init(fifo path: String) throws(CaseFailure) {
        fifo = try LineFifo(path: path)
    }

    /// stdbuf: wev block-buffers a pipe.
    var shellCommand: String { "exec stdbuf -oL wev > \(fifo.path) 2>/dev/null" }
    var isReady: Bool { activated }
    let readyTimeout: Double = 120
    var recent: String { "its last touch events: \(describe(touches.suffix(8))); its last lines: \(recentLines.suffix(5))" }

    func pump(milliseconds: Int32, alongside subscriber: Subscriber? = nil) {
        for (line, receivedAt) in fifo.read(milliseconds: milliseconds, alongside: subscriber) { take(line, receivedAt: receivedAt) }
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
