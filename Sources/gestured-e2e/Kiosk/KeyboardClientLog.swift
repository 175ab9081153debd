import Foundation
import GestureTestSupport

/// The key events a kiosk client printed, read through a FIFO: wev (a Wayland client: its
/// `wl_keyboard` `modifiers` and `key` events) or xev (an X11 client, through Xwayland: its
/// `KeyPress`/`KeyRelease` events with the modifier state). Both print an event's details
/// on lines after its header. Ready once the client has the keyboard focus (wev: its
/// toplevel `activated`; xev: the `KeymapNotify` X sends after every focus-in).
final class KeyboardClientLog: KioskClient {
    enum Program: String {
        case wev, xev
    }

    enum Event: Equatable, CustomStringConvertible {
        /// wev: the modifiers now depressed (`Control`, `Shift`, …).
        case modifiers([String])
        /// A key by keysym name, with the modifiers held when it went down or up (xev's
        /// state; for wev the last `modifiers` event).
        case key(sym: String, pressed: Bool, held: [String])

        var description: String {
            switch self {
            case .modifiers(let names): "modifiers [\(names.joined(separator: " "))]"
            case .key(let sym, let pressed, let held): "\(sym) \(pressed ? "pressed" : "released") [\(held.joined(separator: " "))]"
            }
        }
    }

    let program: Program
    private let fifo: LineFifo
    /// A shell command run before the client in the same shell (cage's one client command).
    private let before: String?
    private(set) var events: [Event] = []
    private(set) var focused = false
    /// The client has a keyboard with the focus: wev between `wl_keyboard` `enter` and
    /// `leave` (a seat offers `wl_keyboard` only while it has a keyboard); xev once focused
    /// (an X server always has one).
    var hasKeyboard: Bool {
        switch program {
        case .wev: keyboardEntered
        case .xev: focused
        }
    }
    private var keyboardEntered = false
    /// The client's last 40 lines as it printed them (a failure shows what the parser passed over).
    private(set) var recentLines: [String] = []
    private var held: [String] = []
    /// The header whose detail line is still to come.
    private var pending: Pending?
    private enum Pending {
        case modifiers
        case key(pressed: Bool)
    }

    init(_ program: Program, fifo path: String, before: String?) throws(CaseFailure) {
        self.program = program
        fifo = try LineFifo(path: path)
        self.before = before
    }

    var shellCommand: String {
        let client =
            switch program {
            case .wev: "wev"
            case .xev: "xev -event keyboard"
            }
        return (before.map { "\($0) " } ?? "") + "exec stdbuf -oL \(client) > \(fifo.path) 2>/dev/null"
    }
    var isReady: Bool { focused }
    let readyTimeout: Double = 120
    var recent: String { "its key events: \(events.suffix(8)); its last lines: \(recentLines.suffix(8))" }

    func pump(milliseconds: Int32, alongside subscriber: Subscriber?) {
        for (line, _) in fifo.read(milliseconds: milliseconds, alongside: subscriber) { take(line) }
    }

    private func take(_ line: String) {
        recentLines.append(line)
        if recentLines.count > 40 { recentLines.removeFirst(recentLines.count - 40) }
        switch program {
        case .wev: takeWev(line)
        case .xev: takeXev(line)
        }
    }

    /// `[13:     wl_keyboard] modifiers: …` then `depressed: 00000004: Control`;
    /// `[13:     wl_keyboard] key: …; state: 1 (pressed)` then `sym: r            (114), …`.
    private func takeWev(_ line: String) {
        if line.contains("activated") { focused = true }
        if line.contains("wl_keyboard] enter:") { keyboardEntered = true }
        if line.contains("wl_keyboard] leave:") { keyboardEntered = false }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if line.contains("wl_keyboard] modifiers:") {
            pending = .modifiers
        } else if line.contains("wl_keyboard] key:") {
            pending = .key(pressed: line.contains("(pressed)"))
        } else if let expected = pending {
            switch expected {
            case .modifiers:
                guard trimmed.hasPrefix("depressed:") else { return }
                let fields = trimmed.split(separator: ":", maxSplits: 2)
                held = fields.count == 3 ? fields[2].split(separator: " ").map(String.init) : []
                events.append(.modifiers(held))
            case .key(let pressed):
                guard trimmed.hasPrefix("sym:") else { return }
                let sym = trimmed.dropFirst(4).split(separator: " ").first.map(String.init) ?? ""
                events.append(.key(sym: sym, pressed: pressed, held: held))
            }
            pending = nil
        }
    }

    /// `KeyPress event, serial 28, …` then `state 0x4, keycode 27 (keysym 0x72, r), same_screen YES,`.
    private func takeXev(_ line: String) {
        if line.hasPrefix("KeymapNotify event") { focused = true }
        if line.hasPrefix("KeyPress event") {
            pending = .key(pressed: true)
        } else if line.hasPrefix("KeyRelease event") {
            pending = .key(pressed: false)
        } else if case .key(let pressed) = pending {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("state 0x"), let open = trimmed.range(of: "(keysym "),
                let close = trimmed[open.upperBound...].firstIndex(of: ")")
            else { return }
            let stateText = trimmed.dropFirst("state 0x".count).prefix { $0 != "," }
            let state = Int(stateText, radix: 16) ?? 0
            let sym = trimmed[open.upperBound..<close].split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            let names = [(0x1, "Shift"), (0x4, "Control"), (0x8, "Mod1"), (0x40, "Mod4"), (0x80, "Mod5")]
            events.append(.key(sym: sym, pressed: pressed, held: names.filter { state & $0.0 != 0 }.map(\.1)))
            pending = nil
        }
    }
}
