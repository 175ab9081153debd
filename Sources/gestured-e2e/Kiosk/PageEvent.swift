import Foundation

/// One event the kiosk tier's page (vm/kiosk-page/probe.html) logged, decoded from its
/// console line. Coordinates are CSS pixels of the layout viewport; which fields are
/// present depends on the event (the page's comment lists them).
struct PageEvent: Decodable {
    /// One changed touch of a `touch*` event.
    struct Touch: Decodable {
        let id: Int
        let x: Double
        let y: Double
    }

    /// The DOM event's type (`pointerdown`, `click`, …) or the page's own line (`ready`,
    /// `state`, `viewport`, `gestured`, `bridge-open`, …).
    let name: String
    /// The page's generation (each reload the driver asks for is a new one).
    let generation: Int
    let x: Double?
    let y: Double?
    /// `pointerId`, for pointer events.
    let id: Int?
    /// `pointerType`, for pointer events.
    let kind: String?
    /// Touches still down after a `touch*` event, and the ones it changed.
    let down: Int?
    let changed: [Touch]?
    let button: Int?
    /// For mouse events: whether Chromium made it from a touch (false: the windowing system
    /// emulated it).
    let fromTouch: Bool?
    /// The selected text (`selectionchange`, `state`); `CODE/KEY` of a key event.
    let text: String?
    /// The modifiers held during a key event (`Shift`, `Control`, `Alt`, `Meta`).
    let held: [String]?
    let selection: String?
    /// `visualViewport.scale` (`viewport`, `state`, `ready`); the layout viewport's size
    /// (`ready`, `resize`, `state`).
    let scale: Double?
    let sy: Double?
    let w: Double?
    let h: Double?
    /// A gesture the page's gestured-web client received (`gestured`).
    let gesture: String?
    let phase: String?
    let region: String?
    let fingers: Int?
    /// The report number a `state` line answers.
    let report: Int?
    /// The page's `PageOptions` (`state`).
    let menus: Bool?
    let cursor: Bool?
    let message: String?

    enum CodingKeys: String, CodingKey {
        case name = "e"
        case generation = "g"
        case x, y, id, kind, down, changed, button, fromTouch, text, held, selection, scale, sy, w, h, gesture, phase, region, fingers
        case report, menus, cursor, message
    }

    /// Events a touch (or a key) makes in the page (DOM input events); the page's own lines are not.
    static let inputNames: Set<String> = [
        "pointerdown", "pointermove", "pointerup", "pointercancel", "touchstart", "touchmove", "touchend", "touchcancel",
        "mousedown", "mouseup", "click", "dblclick", "auxclick", "contextmenu", "selectstart", "keydown", "keyup",
    ]

    var isInput: Bool { Self.inputNames.contains(name) }

    /// A key event's `KeyboardEvent.key` (`r`, `Shift`, `/`); nil for any other event.
    var key: String? {
        guard name == "keydown" || name == "keyup", let text, let slash = text.firstIndex(of: "/") else { return nil }
        return String(text[text.index(after: slash)...])
    }

    /// Parses a line of Chromium's standard error: a console line of the page,
    /// `[…:INFO:CONSOLE:NN] "GK {json}", source: URL (NN)`; nil for any other line.
    static func parse(_ line: String) -> PageEvent? {
        guard let start = line.range(of: "\"GK "), let end = line.range(of: "\", source: ", options: .backwards),
            start.upperBound <= end.lowerBound
        else { return nil }
        return try? JSONDecoder().decode(PageEvent.self, from: Data(line[start.upperBound..<end.lowerBound].utf8))
    }

    /// The event in a few words, for failure messages.
    var summary: String {
        var text = name
        if let gesture { text += " \(gesture)" + (phase.map { " \($0)" } ?? "") + (region.map { " in \($0)" } ?? "") }
        if let x, let y { text += " (\(x), \(y))" }
        if let changed { text += " " + changed.map { "#\($0.id) (\($0.x), \($0.y))" }.joined(separator: " ") }
        if let scale { text += " scale \(scale)" }
        if let sy, name == "scrollend" || name == "state" { text += " scrollY \(sy)" }
        if let selected = self.text ?? selection, !selected.isEmpty { text += " \"\(selected)\"" }
        if let fromTouch, !fromTouch { text += " (not from a touch)" }
        if let held, !held.isEmpty { text += " with \(held.joined(separator: "+"))" }
        return text
    }
}
