import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

/// An engine event becomes a protocol message: the region-local points are computed from
/// the event's region rectangle (the encoder itself is tested in GestureProtocolTests).
@Suite struct ProtocolMessageTests {
    private func line(_ event: GestureEvent, seq: UInt64 = 3, device: String = "ELAN Touchscreen") -> String {
        String(decoding: WireEncoder.encode(.gesture(GestureMessage(event, device: device, seq: seq))), as: UTF8.self)
    }

    @Test func tapMatchesTheDocumentedExampleByteForByte() {
        let tap = GestureEvent(
            .tap(count: 1), phase: .ended, id: 3, time: 1_000_080_000, region: nil, fingers: 1,
            location: Point(x: 0.5, y: 0.5))
        #expect(
            line(tap)
                == #"{"type":"gesture","gesture":"tap","phase":"ended","id":3,"seq":3,"time":1000080000,"device":"ELAN Touchscreen","region":null,"fingers":1,"location":{"x":0.5,"y":0.5},"count":1}"#
                + "\n")
    }

    @Test func regionEventsCarryLocalCoordinatesAsDocumented() throws {
        let tap = GestureEvent(
            .tap(count: 1), phase: .ended, id: 3, time: 1_000_080_000, region: "ok-button", fingers: 1,
            location: Point(x: 0.45, y: 0.83), regionRect: Rect(x: 0.4, y: 0.8, width: 0.2, height: 0.1))
        #expect(
            line(tap)
                == #"{"type":"gesture","gesture":"tap","phase":"ended","id":3,"seq":3,"time":1000080000,"device":"ELAN Touchscreen","region":"ok-button","fingers":1,"location":{"x":0.45,"y":0.83},"localLocation":{"x":0.25,"y":0.3},"count":1}"#
                + "\n")
        let values = DragValues(
            startLocation: Point(x: 0.5, y: 0.6), translation: Point(x: 0.1, y: 0),
            velocity: Point(x: 1, y: 0), predictedEndLocation: Point(x: 1.099, y: 0.6), predictedEndTranslation: Point(x: 0.599, y: 0))
        let swipe = GestureEvent(
            .swipe(direction: .right, edge: nil, drag: values), phase: .ended, id: 9, time: 5,
            region: "page", fingers: 1, location: Point(x: 0.6, y: 0.6), regionRect: Rect(x: 0, y: 0.2, width: 1, height: 0.8))
        let message = GestureMessage(swipe, device: "d")
        let local = try #require(message.localLocation)
        let localStart = try #require(message.drag?.localStartLocation)
        #expect(abs(local.x - 0.6) < 1e-12 && abs(local.y - 0.5) < 1e-12, "\(local)")
        #expect(abs(localStart.x - 0.5) < 1e-12 && abs(localStart.y - 0.5) < 1e-12, "\(localStart)")
        #expect(line(swipe).contains(#""startLocation":{"x":0.5,"y":0.6},"localStartLocation":{"x":0.5,"y":0.5},"translation""#))
    }

    @Test func topLevelEventsHaveNoLocalPoints() {
        let values = DragValues(
            startLocation: .zero, translation: .zero, velocity: .zero, predictedEndLocation: .zero, predictedEndTranslation: .zero)
        let drag = GestureMessage(
            GestureEvent(.drag(values), phase: .began, id: 1, time: 0, region: nil, fingers: 1, location: .zero), device: "d")
        #expect(drag.localLocation == nil)
        #expect(drag.drag?.localStartLocation == nil)
        #expect(
            drag.details
                == .drag(
                    GestureMessage.Drag(
                        startLocation: .zero, translation: .zero, velocity: .zero,
                        predictedEndLocation: .zero, predictedEndTranslation: .zero)))
    }

    @Test func aContactBecomesATouchLine() {
        let contact = Contact(id: 4, phase: .moved, location: Point(x: 0.25, y: 0.5), surfaceLocation: .zero)
        let touch = TouchMessage(contact, time: 1_000_016_000, device: "ELAN Touchscreen", seq: 9)
        #expect(
            String(decoding: WireEncoder.encode(.touch(touch)), as: UTF8.self)
                == #"{"type":"touch","phase":"moved","touch":4,"seq":9,"time":1000016000,"device":"ELAN Touchscreen","location":{"x":0.25,"y":0.5}}"#
                + "\n")
    }
}
