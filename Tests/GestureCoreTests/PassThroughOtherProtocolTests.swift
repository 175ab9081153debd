import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

@Suite("Pass-through filter: protocol A, single touch")
struct PassThroughOtherProtocolTests {
    static let unslottedEdge = PassThroughPolicy(reserved: [.init(name: "edge", rect: Rect(x: 0, y: 0, width: 1, height: 0.1))])

    @Test func protocolAReservedContactIsLeftOutOfEveryList() {
        var s = EventScript()
        s.contact(x: 4800, y: 3600)
        s.key(BTN.touch, true)
        s.report()
        s.contact(x: 4810, y: 3600)
        s.contact(x: 1000, y: 300)
        s.report()  // second: reserved (y < 720)
        s.contact(x: 4820, y: 3600)
        s.contact(x: 1000, y: 2000)
        s.report()  // it moves out: still reserved
        s.contact(x: 1000, y: 2500)
        s.report()  // the middle one lifted
        s.key(BTN.touch, false)
        s.report()  // all lifted
        s.contact(x: 5000, y: 5000)
        s.key(BTN.touch, true)
        s.report()  // a new one passes
        var run = PassThroughRun(Devices.unslotted(), Self.unslottedEdge)
        run.feed(s.events)
        var reader = EvdevReader(protocolA: true)
        reader.read(run.output)
        #expect(reader.frames.map(\.contacts) == [[[4800, 3600]], [[4810, 3600]], [[4820, 3600]], [], [[5000, 5000]]])
        #expect(reader.frames.map { $0.keys[BTN.touch] } == [1, 1, 1, 0, 1])
    }

    @Test func protocolAResyncDeltaKeepsTheContacts() {
        var s = EventScript()
        s.contact(x: 1000, y: 300)
        s.contact(x: 4800, y: 3600)
        s.key(BTN.touch, true)
        s.report()
        s.contact(x: 1000, y: 300)
        s.syn(SYN.dropped)
        s.report()
        s.abs(ABS.x, 1000)
        s.report()  // libevdev's delta: no lists
        s.contact(x: 1000, y: 320)
        s.contact(x: 4800, y: 3610)
        s.report()
        var run = PassThroughRun(Devices.unslotted(), Self.unslottedEdge)
        run.feed(s.events)
        var reader = EvdevReader(protocolA: true)
        reader.read(run.output)
        #expect(reader.frames.last?.contacts == [[4800, 3610]])
        #expect(!run.output.contains { $0.code == ABS.mtPositionX && $0.value == 1000 })
    }

    @Test func singleTouchReservedTouchLeavesNoTrace() {
        var s = EventScript()
        s.abs(ABS.x, 2000)
        s.abs(ABS.y, 100)
        s.key(BTN.touch, true)
        s.report()  // reserved (y < 409)
        s.abs(ABS.y, 2000)
        s.report()
        s.key(BTN.touch, false)
        s.report()
        s.abs(ABS.x, 3000)
        s.abs(ABS.y, 3000)
        s.key(BTN.touch, true)
        s.report()  // passes
        s.key(BTN.touch, false)
        s.report()
        var run = PassThroughRun(Devices.singleTouch(), Self.unslottedEdge)
        run.feed(s.events)
        let frames = run.reader.frames
        #expect(frames.map { $0.keys[BTN.touch] } == [1, 0])
        #expect(frames.first?.axes == [ABS.x: 3000, ABS.y: 3000])
        #expect(!run.output.contains { $0.value == 2000 || $0.value == 100 })
    }
}
