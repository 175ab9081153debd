import GestureProtocol
import GestureTestSupport

/// `app-input = "pointer"` with Chromium: gestured's pointer device read by the compositor
/// as a mouse, its clicks reaching the page as mouse events (through Xwayland where the
/// guide runs Chromium so). Twenty long presses must reach the page as exactly twenty
/// right-button `contextmenu` events, each at its point and before the finger lifted, with
/// no left-button press and no touch; a tap as one left click where it touched. The page
/// prevents the context menu's default for this case (`ChromiumPage.set`): an open
/// menu takes the next right click to close itself, and the page would count one press in
/// two.
extension ChromiumRun {
    static let pointerLongPresses = 20
    /// How far from the touched point a click may reach the page, in CSS px along each axis:
    /// the pointer's axes span the screen in 32768 steps of their own, not the panel's, and a
    /// mouse event's coordinates are whole pixels; a click at the wrong point is hundreds off.
    static let pointerLimit = 3.0

    /// The case's name.
    var pointerCase: String {
        name(
            "mouse emulation (app-input = \"pointer\"): \(Self.pointerLongPresses) long presses give the page \(Self.pointerLongPresses) right-button contextmenu events where touched and no left-button press, no touch; a tap one left click where touched"
        )
    }

    func pointerClicks() throws(CaseFailure) {
        // The compositor opens the pointer device some time after it appears: the daemon's
        // start taps until one reaches the page as a click.
        try startDaemon(config: KioskCases.config(deviceKeys: ["app-input = \"pointer\""]), asMouse: true)
        try page.set(PageOptions(menus: false), alongside: subscriber)
        defer { try? page.set(PageOptions(), alongside: subscriber) }
        guard let subscriber else { throw CaseFailure("no subscriber") }
        let mark = page.events.count
        var spots: [Spot] = []
        for index in 0..<Self.pointerLongPresses {
            let spot = Spot(0.2 + 0.06 * Double(index % 10), 0.35 + 0.3 * Double(index / 10))
            spots.append(spot)
            try panel.frame([0: spot])
            _ = try subscriber.gestures(until: "long press \(index + 1)'s began", timeout: Self.patience) {
                $0.device == panel.name && $0.gesture == .longPress && $0.phase == .began
            }
            // Lifted only once the page has the right click: it came while the finger was down.
            try page.wait("long press \(index + 1)'s contextmenu", timeout: Self.patience, alongside: subscriber) {
                page.inputs(since: mark).filter { $0.name == "contextmenu" }.count > index
            }
            try panel.lift()
            _ = try subscriber.gestures(until: "long press \(index + 1)'s end", timeout: Self.patience) {
                $0.device == panel.name && $0.gesture == .longPress && ($0.phase == .ended || $0.phase == .cancelled)
            }
        }
        quiesce()
        let inputs = page.inputs(since: mark)
        let menus = inputs.filter { $0.name == "contextmenu" }
        let rightDowns = inputs.filter { $0.name == "mousedown" && $0.button == 2 }
        let leftDowns = inputs.filter { ($0.name == "mousedown" || $0.name == "click") && $0.button == 0 }
        let touches = inputs.filter { $0.name.hasPrefix("touch") || ($0.name == "pointerdown" && $0.kind != "mouse") }
        try expect(
            menus.count == Self.pointerLongPresses && menus.allSatisfy({ $0.button == 2 })
                && rightDowns.count == Self.pointerLongPresses && leftDowns.isEmpty && touches.isEmpty,
            "for \(Self.pointerLongPresses) long presses the page got \(menus.count) contextmenu, \(rightDowns.count) right mousedown, \(leftDowns.count) left mousedown or click, \(touches.count) touch events: \(describe(inputs.filter { $0.name != "pointermove" }))"
        )
        var worst = 0.0
        for (menu, spot) in zip(menus, spots) {
            let off = offset(menu.x, menu.y, from: spot, whole: true)
            worst = max(worst, off)
            try expect(
                off <= Self.pointerLimit,
                "a contextmenu for the long press at (\(spot.x), \(spot.y)) is at (\(menu.x ?? .nan), \(menu.y ?? .nan)), \(off) px off")
        }
        let tapSpot = Spot(0.5, 0.5)
        let tapMark = try clickingTap(tapSpot)
        let tapInputs = page.inputs(since: tapMark)
        let clicks = tapInputs.filter { $0.name == "click" && $0.button == 0 }
        try expect(
            clicks.count == 1 && tapInputs.filter({ $0.name == "mousedown" }).count == 1
                && !tapInputs.contains { $0.name == "contextmenu" || $0.name.hasPrefix("touch") },
            "a tap gave the page \(describe(tapInputs.filter { $0.name != "pointermove" }))")
        let tapOffset = offset(clicks[0].x, clicks[0].y, from: tapSpot, whole: true)
        try expect(tapOffset <= Self.pointerLimit, "the tap's click is \(tapOffset) px off")
        say(
            "  NOTE: \(prefix): \(menus.count) right-button contextmenu events for \(Self.pointerLongPresses) long presses (largest offset \(worst) CSS px), \(leftDowns.count) left presses; the tap one click \(tapOffset) CSS px off"
        )
    }

    /// The cursor case's name.
    var cursorCase: String {
        name(
            "mouse emulation: the compositor draws the cursor where a tap clicked; with the page's cursor: none, none where the next tap clicked, and none left where the first one did"
        )
    }

    /// What a user sees of the cursor (after `pointerClicks`, gestured still emulating a
    /// mouse): a page that sets no cursor gets Chromium's arrow, which the compositor draws
    /// where a tap clicked; with the page's `cursor: none`, as the kiosk guide tells a kiosk
    /// page, nothing is drawn where the next tap clicked, and the arrow is gone from the
    /// first point. Seen in grim's pictures of the output (`Screenshot`) before and after each
    /// tap: taps on the page's plain text change no pixel of it, so a difference around a
    /// point is the cursor.
    func cursorSeen() throws(CaseFailure) {
        let first = Spot(0.45, 0.5)
        let second = Spot(0.3, 0.5)
        let before = try Screenshot(of: compositor, name: "cursor-before")
        try clickingTap(first)
        let shown = try Screenshot(of: compositor, name: "cursor-shown")
        try page.set(PageOptions(menus: false, cursor: false), alongside: subscriber)
        defer { try? page.set(PageOptions(), alongside: subscriber) }
        try clickingTap(second)
        let hidden = try Screenshot(of: compositor, name: "cursor-hidden")
        let (firstPoint, secondPoint) = (expected(first), expected(second))
        let drawn = shown.differingPixels(from: before, at: firstPoint.x, firstPoint.y)
        let drawnAtSecond = hidden.differingPixels(from: shown, at: secondPoint.x, secondPoint.y)
        let leftAtFirst = hidden.differingPixels(from: before, at: firstPoint.x, firstPoint.y)
        say(
            "  NOTE: \(prefix): the cursor: \(drawn) pixels changed where the first tap clicked; with cursor: none \(drawnAtSecond) where the second did, \(leftAtFirst) left at the first"
        )
        try expect(drawn >= 20, "no cursor drawn where the tap clicked: \(drawn) pixels changed there")
        try expect(
            drawnAtSecond == 0 && leftAtFirst == 0,
            "with cursor: none the compositor still drew something: \(drawnAtSecond) pixels changed where the second tap clicked, \(leftAtFirst) where the first one did"
        )
    }
}
