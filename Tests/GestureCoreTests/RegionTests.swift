import GestureProtocol
import Testing

@testable import GestureCore

@Suite("regions")
struct RegionTests {
    static let configuration: EngineConfiguration = {
        var container = GestureSettings()
        container.enabled = [.press, .tap, .drag]
        return EngineConfiguration(regions: [
            Region(name: "container", rect: Rect(x: 0, y: 0, width: 1, height: 0.5), settings: container),
            Region(name: "button", rect: Rect(x: 0.4, y: 0.1, width: 0.2, height: 0.2)),
        ])
    }()

    @Test func innermostRegionAloneReacts() {
        var h = GestureHarness(Self.configuration)
        h.tap(1, 0.5, 0.2, at: 0)
        #expect(h.events.allSatisfy { $0.region == "button" })
        #expect(h.summary == ["press.began", "tap.ended", "press.ended"])
        h.tap(2, 0.1, 0.2, at: 1000)
        #expect(h.events.suffix(3).allSatisfy { $0.region == "container" })
        h.tap(3, 0.5, 0.9, at: 2000)
        #expect(h.events.suffix(3).allSatisfy { $0.region == nil })
    }

    @Test func regionsRunConcurrently() {
        var h = GestureHarness(Self.configuration)
        h.frame(0, .down(1, 0.5, 0.2))
        h.frame(10, .down(2, 0.1, 0.4))
        h.frame(40, .move(2, 0.2, 0.4))
        h.frame(60, .up(1))
        h.frame(80, .up(2))
        #expect(h.events.filter { $0.region == "button" }.map(\.kind) == [.press, .tap, .press])
        #expect(h.events.filter { $0.region == "container" }.map(\.kind) == [.press, .drag, .drag, .press])
    }

    @Test func leavingTheRegionCancelsPressAndTap() {
        var h = GestureHarness(Self.configuration)
        h.frame(0, .down(1, 0.59, 0.2))
        h.frame(30, .move(1, 0.61, 0.2))  // 4 mm, out of the button
        h.frame(60, .up(1))
        #expect(h.events(.press).map(\.phase) == [.began, .cancelled])
        #expect(h.events(.tap).isEmpty)
        #expect(h.events.allSatisfy { $0.region == "button" })
    }
}
