import GestureTestSupport

/// The mouse buttons an X11 client got through a compositor's Xwayland, read through a
/// FIFO: xev's `ButtonPress`/`ButtonRelease` events, each with its button number on a line
/// after its header. Ready once its window is mapped (`MapNotify`) or focused
/// (`KeymapNotify`).
final class ButtonClientLog: KioskClient {
    /// One button event: which button, and whether it went down.
    struct Event: Equatable, CustomStringConvertible {
        let button: Int
        let pressed: Bool

        var description: String { "button \(button) \(pressed ? "press" : "release")" }
    }

    private let fifo: LineFifo
    private(set) var events: [Event] = []
    private var mapped = false
    /// The header whose `button N` line is still to come: whether it is a press.
    private var pending: Bool?
    private var recentLines: [String] = []

    init(fifo path: String) throws(CaseFailure) {
        fifo = try LineFifo(path: path)
    }

    var shellCommand: String {
        "exec stdbuf -oL xev -event keyboard -event button -event structure > \(fifo.path) 2>/dev/null"
    }
    var isReady: Bool { mapped }
    let readyTimeout: Double = 120
    var recent: String { "its button events: \(events.suffix(8)); its last lines: \(recentLines.suffix(8))" }

    /// How many presses of `button` came from the event at `mark` on.
    func presses(_ button: Int, since mark: Int = 0) -> Int {
        events.dropFirst(mark).filter { $0.button == button && $0.pressed }.count
    }

    func releases(_ button: Int, since mark: Int = 0) -> Int {
        events.dropFirst(mark).filter { $0.button == button && !$0.pressed }.count
    }

    func pump(milliseconds: Int32, alongside subscriber: Subscriber?) {
        for (line, _) in fifo.read(milliseconds: milliseconds, alongside: subscriber) { take(line) }
    }

    /// `ButtonPress event, serial 37, …` then `    state 0x0, button 3, same_screen YES`.
    private func take(_ line: String) {
        recentLines.append(line)
        if recentLines.count > 40 { recentLines.removeFirst(recentLines.count - 40) }
        if line.hasPrefix("MapNotify event") || line.hasPrefix("KeymapNotify event") { mapped = true }
        if line.hasPrefix("ButtonPress event") {
            pending = true
        } else if line.hasPrefix("ButtonRelease event") {
            pending = false
        } else if let pressed = pending, let range = line.range(of: ", button ") {
            let number = line[range.upperBound...].prefix { $0.isNumber }
            if let button = Int(number) { events.append(Event(button: button, pressed: pressed)) }
            pending = nil
        }
    }
}
