import GestureProtocol
import GestureTestSupport
import Testing

@testable import GestureCore

/// Gesture composition across nested regions (docs/gestures.md "Regions and
/// composition"): fall-through, `simultaneous`, `high-priority`, `fall-through = false`,
/// region-local coordinates. Surface 200 × 100 mm; times in ms on the virtual clock.
@Suite("composition across regions")
struct CompositionTests {
    static func settings(_ enabled: Set<GestureKind>, _ change: (inout GestureSettings) -> Void = { _ in }) -> GestureSettings {
        var settings = GestureSettings()
        settings.enabled = enabled
        change(&settings)
        return settings
    }

    static let buttonRect = Rect(x: 0.4, y: 0.4, width: 0.2, height: 0.2)

    /// A full-screen page with everything enabled and a button (press, tap) in its middle.
    static func pageOfButtons(page: (inout Region) -> Void = { _ in }, button: (inout Region) -> Void = { _ in }) -> EngineConfiguration {
        var pageRegion = Region(name: "page", rect: .unit)
        page(&pageRegion)
        var buttonRegion = Region(name: "button", rect: buttonRect, settings: settings([.press, .tap]))
        button(&buttonRegion)
        return EngineConfiguration(regions: [pageRegion, buttonRegion])
    }

    static func kinds(_ h: GestureHarness, region: String?) -> [String] {
        h.events.filter { $0.region == region }.map { "\($0.kind.rawValue).\($0.phase.rawValue)" }
    }

    static func expectValid(_ h: GestureHarness, sourceLocation: SourceLocation = #_sourceLocation) {
        let violations = GestureStreamValidator.violations(in: h.events)
        #expect(violations.isEmpty, "\(violations)", sourceLocation: sourceLocation)
    }

    // MARK: Fall-through (the default)

    @Test func dragFromAButtonScrollsThePageAndCancelsTheButtonsPress() {
        var h = GestureHarness(Self.pageOfButtons())
        h.frame(0, .down(1, 0.5, 0.5))
        h.glide(1, from: Point(x: 0.5, y: 0.5), to: Point(x: 0.8, y: 0.5), startingAt: 0, steps: 10, interval: 10)  // 60 mm
        h.frame(105, .up(1))
        #expect(Self.kinds(h, region: "button") == ["press.began", "press.cancelled"])
        #expect(h.events(.tap).isEmpty)
        let drags = h.events(.drag)
        #expect(drags.first?.phase == .began && drags.last?.phase == .ended)
        #expect(drags.allSatisfy { $0.region == "page" })
        #expect(h.events(.swipe).map(\.region) == ["page"])
        // The button's press is cancelled at the moment the page's drag takes the touch.
        let cancelled = h.events(.press).last!
        #expect(cancelled.time == drags[0].time)
        Self.expectValid(h)
    }

    @Test func holdingAButtonLongPressesThePage() {
        var h = GestureHarness(Self.pageOfButtons())
        h.frame(0, .down(1, 0.5, 0.5))
        h.advance(to: 800)
        h.frame(900, .up(1))
        #expect(Self.kinds(h, region: "button") == ["press.began", "press.cancelled"])
        #expect(Self.kinds(h, region: "page") == ["long-press.began", "long-press.ended"])
        #expect(h.events(.longPress)[0].time == 500_000)
        #expect(h.events(.press)[1].time == 500_000)
        #expect(h.events(.tap).isEmpty)
        Self.expectValid(h)
    }

    @Test func tapOnAButtonIsTheButtonsAlone() {
        var h = GestureHarness(Self.pageOfButtons())
        h.tap(1, 0.5, 0.5, at: 0)
        #expect(h.summary == ["press.began", "tap.ended", "press.ended"])
        #expect(h.events.allSatisfy { $0.region == "button" })
        // Beside the button the page has the touch to itself.
        h.tap(2, 0.1, 0.1, at: 1000)
        #expect(Self.kinds(h, region: "page") == ["press.began", "tap.ended", "press.ended"])
        Self.expectValid(h)
    }

    @Test func aKindNobodyInsideEnablesFallsToTheTopLevel() {
        // No page: the button's drag and long press are the top level's (region null).
        let configuration = EngineConfiguration(regions: [
            Region(name: "button", rect: Self.buttonRect, settings: Self.settings([.press, .tap]))
        ])
        var h = GestureHarness(configuration)
        h.frame(0, .down(1, 0.5, 0.5))
        h.frame(20, .move(1, 0.53, 0.5))  // 6 mm: a drag, too short for a swipe
        h.frame(40, .up(1))
        #expect(Self.kinds(h, region: "button") == ["press.began", "press.cancelled"])
        #expect(Self.kinds(h, region: nil) == ["drag.began", "drag.ended"])
        Self.expectValid(h)
    }

    @Test func enclosingRegionsUseTheirOwnThresholds() {
        // The page's drag needs 20 mm: a 10 mm move stays a (failed) tap of the button, no drag.
        var h = GestureHarness(Self.pageOfButtons(page: { $0.settings.drag.minimumDistance = 20 }))
        h.frame(0, .down(1, 0.5, 0.5))
        h.frame(20, .move(1, 0.55, 0.5))
        h.frame(40, .up(1))
        #expect(h.summary == ["press.began", "press.ended"])
        h.frame(1000, .down(2, 0.5, 0.5))
        h.frame(1020, .move(2, 0.62, 0.5))  // 24 mm
        h.frame(1040, .up(2))
        #expect(h.events(.drag).map(\.phase) == [.began, .ended])
        Self.expectValid(h)
    }

    @Test func threeLevelsOfNesting() {
        // page (everything) ⊃ card (long press after 300 ms) ⊃ button (press, tap).
        let configuration = EngineConfiguration(regions: [
            Region(name: "page", rect: .unit),
            Region(
                name: "card", rect: Rect(x: 0.1, y: 0.1, width: 0.8, height: 0.8),
                settings: Self.settings([.longPress]) { $0.longPress.minimumDuration = 300 }),
            Region(name: "button", rect: Self.buttonRect, settings: Self.settings([.press, .tap])),
        ])
        var h = GestureHarness(configuration)
        h.tap(1, 0.5, 0.5, at: 0)
        #expect(Self.kinds(h, region: "button") == ["press.began", "tap.ended", "press.ended"])
        #expect(h.events.count == 3)

        h.frame(1000, .down(2, 0.5, 0.5))
        h.frame(1400, .up(2))
        #expect(Self.kinds(h, region: "card") == ["long-press.began", "long-press.ended"])
        #expect(h.events(.longPress)[0].time == 1_300_000, "the card's own 300 ms")

        h.frame(2000, .down(3, 0.5, 0.5))
        h.glide(3, from: Point(x: 0.5, y: 0.5), to: Point(x: 0.5, y: 0.8), startingAt: 2000, steps: 6, interval: 10)
        h.frame(2070, .up(3))
        #expect(h.events(.drag).allSatisfy { $0.region == "page" } && !h.events(.drag).isEmpty)

        // On the card beside the button: the page presses (the card does not), the card long-presses.
        h.frame(3000, .down(4, 0.2, 0.2))
        h.frame(3400, .up(4))
        #expect(
            h.events.suffix(4).map { "\($0.region ?? "-") \($0.kind.rawValue).\($0.phase.rawValue)" }
                == ["page press.began", "card long-press.began", "card long-press.ended", "page press.ended"])
        Self.expectValid(h)
    }

    @Test func twoFingersOnTwoButtonsPinchThePage() {
        let configuration = EngineConfiguration(regions: [
            Region(name: "page", rect: .unit),
            Region(name: "left", rect: Rect(x: 0.3, y: 0.4, width: 0.15, height: 0.2), settings: Self.settings([.press, .tap])),
            Region(name: "right", rect: Rect(x: 0.55, y: 0.4, width: 0.15, height: 0.2), settings: Self.settings([.press, .tap])),
        ])
        var h = GestureHarness(configuration)
        h.frame(0, .down(1, 0.4, 0.5), .down(2, 0.6, 0.5))
        for step in 1...8 {
            let spread = 0.1 + Double(step) * 0.02
            h.frame(Double(step) * 10, .move(1, 0.5 - spread, 0.5), .move(2, 0.5 + spread, 0.5))
        }
        h.frame(100, .up(1), .up(2))
        #expect(h.events(.pinch).first?.phase == .began && h.events(.pinch).allSatisfy { $0.region == "page" })
        #expect(Self.kinds(h, region: "left") == ["press.began", "press.cancelled"])
        #expect(Self.kinds(h, region: "right") == ["press.began", "press.cancelled"])
        #expect(h.events(.tap).isEmpty)
        Self.expectValid(h)
    }

    // MARK: fall-through = false

    @Test func aRegionThatKeepsItsTouchesBehavesAsAlone() {
        var h = GestureHarness(Self.pageOfButtons(button: { $0.fallThrough = false }))
        h.frame(0, .down(1, 0.5, 0.5))
        h.glide(1, from: Point(x: 0.5, y: 0.5), to: Point(x: 0.8, y: 0.5), startingAt: 0, steps: 10, interval: 10)
        h.frame(105, .up(1))
        h.frame(1000, .down(2, 0.5, 0.5))
        h.advance(to: 1800)
        h.frame(1900, .up(2))
        // No drag, no swipe, no long press: the page never sees these touches (the first
        // press is cancelled as the finger leaves the button). No region of the second
        // touch enables long press, so its 900 ms press is still the button's tap.
        #expect(h.summary == ["press.began", "press.cancelled", "press.began", "tap.ended", "press.ended"])
        #expect(h.events.allSatisfy { $0.region == "button" })
        Self.expectValid(h)
    }

    @Test func aDeadZoneReportsNothingAndShieldsThePage() {
        var h = GestureHarness(
            Self.pageOfButtons(button: {
                $0.fallThrough = false
                $0.settings.enabled = []
            }))
        h.tap(1, 0.5, 0.5, at: 0)
        h.frame(1000, .down(2, 0.5, 0.5))
        h.frame(1020, .move(2, 0.6, 0.5))
        h.frame(1040, .up(2))
        #expect(h.events.isEmpty)
    }

    // MARK: simultaneous

    @Test func doubleTapInASimultaneousParentFiresInBoth() {
        var h = GestureHarness(Self.pageOfButtons(page: { $0.simultaneous = [.tap] }))
        h.tap(1, 0.5, 0.5, at: 0)
        h.tap(2, 0.5, 0.5, at: 200)
        let taps = h.events(.tap).map { "\($0.region ?? "-") \($0.details)" }
        #expect(taps == ["button tap(count: 1)", "page tap(count: 1)", "button tap(count: 2)", "page tap(count: 2)"])
        // One press per touch, the button's: the page runs only its tap beside it.
        #expect(h.events(.press).allSatisfy { $0.region == "button" })
        #expect(h.summary.suffix(4) == ["press.began", "tap.ended", "tap.ended", "press.ended"])
        Self.expectValid(h)
    }

    @Test func aSimultaneousGestureIsNotCancelledByTheChildsWin() {
        // The page's long press runs beside the button's tap: a tap before 500 ms is the
        // button's; held on, the page's long press begins although the button is still pressed.
        var h = GestureHarness(
            Self.pageOfButtons(
                page: { $0.simultaneous = [.longPress] },
                button: { $0.settings.enabled = [.press, .tap, .longPress] }))
        h.frame(0, .down(1, 0.5, 0.5))
        h.advance(to: 600)
        h.frame(700, .up(1))
        #expect(
            h.events(.longPress).map { "\($0.region ?? "-") \($0.phase.rawValue)" }
                == ["button began", "page began", "button ended", "page ended"])
        #expect(h.events(.press).map(\.phase) == [.began, .ended])
        Self.expectValid(h)
    }

    // MARK: high-priority

    /// The kiosk's hidden corner: a long press there wins over any button's own long press.
    static func kioskCorner(highPriority: Bool) -> EngineConfiguration {
        EngineConfiguration(regions: [
            Region(name: "page", rect: .unit),
            Region(
                name: "corner", rect: Rect(x: 0, y: 0, width: 0.3, height: 0.3),
                settings: settings([.longPress]) { $0.longPress.minimumDuration = 2000 },
                highPriority: highPriority ? [.longPress] : []),
            Region(name: "button", rect: Rect(x: 0.05, y: 0.05, width: 0.1, height: 0.1), settings: settings([.press, .tap, .longPress])),
        ])
    }

    @Test func aHighPriorityCornerLongPressWinsOverTheButtonsOwn() {
        var h = GestureHarness(Self.kioskCorner(highPriority: true))
        h.frame(0, .down(1, 0.1, 0.1))
        h.advance(to: 2500)
        h.frame(2600, .up(1))
        #expect(Self.kinds(h, region: "corner") == ["long-press.began", "long-press.ended"])
        #expect(h.events(.longPress)[0].time == 2_000_000)
        #expect(Self.kinds(h, region: "button") == ["press.began", "press.cancelled"])
        // A quick touch is still the button's tap.
        h.tap(2, 0.1, 0.1, at: 5000)
        #expect(Self.kinds(h, region: "button").suffix(3) == ["press.began", "tap.ended", "press.ended"])
        Self.expectValid(h)

        // Without high-priority the button's own long press takes the touch.
        var plain = GestureHarness(Self.kioskCorner(highPriority: false))
        plain.frame(0, .down(1, 0.1, 0.1))
        plain.advance(to: 2500)
        plain.frame(2600, .up(1))
        #expect(Self.kinds(plain, region: "button") == ["press.began", "long-press.began", "long-press.ended", "press.ended"])
        #expect(Self.kinds(plain, region: "corner").isEmpty)
    }

    @Test func highPriorityDoesNotReachIntoARegionThatKeepsItsTouches() {
        var configuration = Self.kioskCorner(highPriority: true)
        configuration.regions[2].fallThrough = false
        configuration.regions[2].settings.enabled = [.press, .tap]
        var h = GestureHarness(configuration)
        h.frame(0, .down(1, 0.1, 0.1))
        h.advance(to: 2500)
        h.frame(2600, .up(1))
        // The corner's long press does not reach in; the button has none: a slow tap.
        #expect(h.summary == ["press.began", "tap.ended", "press.ended"])
        #expect(h.events.allSatisfy { $0.region == "button" })
    }

    @Test func longPressInsideAHighPrioritySwipeRegion() {
        let configuration = EngineConfiguration(regions: [
            Region(name: "edge", rect: Rect(x: 0, y: 0, width: 1, height: 0.3), settings: Self.settings([.swipe]), highPriority: [.swipe]),
            Region(
                name: "menu", rect: Rect(x: 0.1, y: 0.05, width: 0.2, height: 0.2),
                settings: Self.settings([.press, .tap, .longPress, .swipe])),
        ])
        var h = GestureHarness(configuration)
        // Held still: the menu's long press (the edge's swipe never claimed the touch).
        h.frame(0, .down(1, 0.2, 0.15))
        h.advance(to: 700)
        h.frame(800, .up(1))
        #expect(Self.kinds(h, region: "menu") == ["press.began", "long-press.began", "long-press.ended", "press.ended"])
        // A fast stroke from the menu: the edge's swipe, not the menu's.
        h.frame(2000, .down(2, 0.2, 0.15))
        h.glide(2, from: Point(x: 0.2, y: 0.15), to: Point(x: 0.6, y: 0.15), startingAt: 2000, steps: 8, interval: 10)
        h.frame(2085, .up(2))
        #expect(h.events(.swipe).map(\.region) == ["edge"])
        #expect(Self.kinds(h, region: "menu").suffix(2) == ["press.began", "press.cancelled"])
        #expect(h.events(.drag).allSatisfy { $0.region == nil }, "the drag falls through to the top level")
        Self.expectValid(h)
    }

    // MARK: Region-local coordinates

    @Test func eventsCarryTheirRegionsLocalCoordinates() {
        var h = GestureHarness(Self.pageOfButtons(page: { $0.rect = Rect(x: 0, y: 0.2, width: 1, height: 0.8) }))
        h.tap(1, 0.45, 0.5, at: 0)
        let tap = h.events(.tap)[0]
        #expect(tap.regionRect == Self.buttonRect)
        #expect(close(tap.localLocation!, Point(x: 0.25, y: 0.5)))
        #expect(tap.localStartLocation == nil)
        h.frame(1000, .down(2, 0.5, 0.6))
        h.frame(1020, .move(2, 0.6, 0.6))
        h.frame(1040, .up(2))
        let drag = h.events(.drag).last!
        #expect(close(drag.localStartLocation!, Point(x: 0.5, y: 0.5)))
        #expect(close(drag.localLocation!, Point(x: 0.6, y: 0.5)))
        h.tap(3, 0.5, 0.1, at: 2000)  // outside every region: no local coordinates
        #expect(h.events.last?.region == nil && h.events.last?.localLocation == nil)
    }

    @Test func regionsOnARotatedDevice() {
        // 100 × 50 mm panel mounted at 90°: device (x, y) → screen (1 − y/500, x/1000).
        let configuration = EngineConfiguration(regions: [
            Region(name: "panel", rect: Rect(x: 0.5, y: 0, width: 0.5, height: 1)),
            Region(name: "button", rect: Rect(x: 0.6, y: 0.1, width: 0.4, height: 0.2), settings: Self.settings([.press, .tap])),
        ])
        var pipeline = DevicePipeline(
            device: Devices.slotted(resolution: 10), geometry: DeviceGeometry(rotation: .quarter), configuration: configuration)
        var sink = CollectingSink()
        var s = EventScript()
        s.slot(0, id: 1, x: 200, y: 100)  // screen (0.8, 0.2): on the button
        s.report()
        s.slot(0, id: -1)
        s.report()
        s.time += 1_000_000
        s.slot(0, id: 2, x: 200, y: 100)
        s.report()
        for step in 1...8 {  // along the device's x: down the screen, 40 mm in 80 ms
            s.slot(0, x: Int32(200 + step * 50))
            s.report()
        }
        s.slot(0, id: -1)
        s.report()
        for event in s.events { pipeline.feed(event, into: &sink) }
        let events = sink.events
        let tap = events.first { $0.kind == .tap }
        #expect(tap?.region == "button")
        #expect(close(tap!.localLocation!, Point(x: 0.5, y: 0.5)))
        let swipe = events.first { $0.kind == .swipe }
        #expect(swipe?.region == "panel")
        guard case .swipe(let direction, _, _)? = swipe?.details else {
            Issue.record("no swipe")
            return
        }
        #expect(direction == .down)
        #expect(close(swipe!.localStartLocation!, Point(x: 0.6, y: 0.2)))
        #expect(events.filter { $0.region == "button" }.map(\.phase) == [.began, .ended, .ended, .began, .cancelled])
        #expect(GestureStreamValidator.violations(in: events).isEmpty)
    }
}

/// The composition example of docs/protocol.md is what the engine and the encoder produce.
@Test func protocolDocumentsTheButtonInAPageExampleVerbatim() throws {
    var h = GestureHarness(
        EngineConfiguration(regions: [
            Region(name: "page", rect: .unit),
            Region(
                name: "ok-button", rect: Rect(x: 0.4, y: 0.8, width: 0.2, height: 0.1), settings: CompositionTests.settings([.press, .tap])),
        ]))
    h.frame(6000, .down(1, 0.45, 0.83))
    h.frame(6020, .move(1, 0.45, 0.79))
    var bytes: [UInt8] = []
    for (index, event) in h.events.enumerated() {
        WireEncoder.append(.gesture(GestureMessage(event, device: "ELAN Touchscreen", seq: UInt64(50 + index))), to: &bytes)
    }
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
    #expect(lines.count == 3)
    let protocolFile = String(#filePath).split(separator: "/").dropLast(3).joined(separator: "/")
    let documented = try String(contentsOfFile: "/" + protocolFile + "/docs/protocol.md", encoding: .utf8)
    for line in lines {
        #expect(documented.contains(line + "\n"), "docs/protocol.md lacks: \(line)")
    }
}
