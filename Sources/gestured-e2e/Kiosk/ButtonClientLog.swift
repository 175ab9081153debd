import GestureTestSupport

/// The mouse buttons a kiosk client got, read through a FIFO: xev (an X11 client, through
/// the compositor's Xwayland: its `ButtonPress`/`ButtonRelease` events, each with its button
/// number on a line after its header; ready once its window is mapped or focused) or wev
/// (a Wayland client: its `wl_pointer` `button` events; ready once its toplevel is
/// activated). Buttons are numbered as X numbers them (1 left, 2 middle, 3 right).
final class ButtonClientLog: KioskClient {
    let program: KeyboardClientLog.Program
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

    init(_ program: KeyboardClientLog.Program, fifo path: String) throws(CaseFailure) {
        self.program = program
        fifo = try LineFifo(path: path)
    }

    var shellCommand: String {
        let client =
            switch program {
            case .xev: "xev -event keyboard -event mouse -event structure"
            case .wev: "wev"
            }
        return "exec stdbuf -oL \(client) > \(fifo.path) 2>/dev/null"
    }
    var isReady: Bool { mapped }
    let readyTimeout: Double = 120
    var recent: String {
        let headers = recentLines.filter { $0.hasSuffix(",") && $0.contains(" event, serial ") }.map { $0.prefix { $0 != "," } }
        let geometry = recentLines.filter { $0.contains("width") || $0.contains("root:(") }.suffix(6)
        return "its button events: \(events.suffix(8)); its last events: \(headers.suffix(30)); \(Array(geometry))"
    }

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

    private func take(_ line: String) {
        recentLines.append(line)
        if recentLines.count > 400 { recentLines.removeFirst(recentLines.count - 400) }
        switch program {
        case .xev: takeXev(line)
        case .wev: takeWev(line)
        }
    }

    /// `[14:     wl_pointer] button: serial: 9; time: 1234; button: 273 (right), state: 1 (pressed)`.
    private func takeWev(_ line: String) {
        if line.contains("activated") { mapped = true }
        guard line.contains("wl_pointer] button:"), let field = line.range(of: "; button: ") else { return }
        let code = Int(line[field.upperBound...].prefix { $0.isNumber }) ?? 0
        let button = [272: 1, 274: 2, 273: 3][code] ?? code
        events.append(Event(button: button, pressed: line.contains("state: 1")))
    }

    /// `ButtonPress event, serial 37, …` then `    state 0x0, button 3, same_screen YES`.
    private func takeXev(_ line: String) {
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
