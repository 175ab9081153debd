import GestureProtocol
import Foundation
import GestureCore
import Testing

@Suite struct WireEncoderTests {
    private func line(_ event: GestureEvent, seq: UInt64 = 3, device: String = "ELAN Touchscreen") -> String {
        var writer = JSONWriter()
        WireEncoder.appendGesture(event, seq: seq, device: device, to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test func tapMatchesTheDocumentedExampleByteForByte() {
        let tap = GestureEvent(kind: .tap, phase: .ended, id: 3, time: 1_000_080_000, region: nil, fingers: 1,
                               location: Point(x: 0.5, y: 0.5), details: .tap(count: 1))
        #expect(line(tap) == #"{"type":"gesture","gesture":"tap","phase":"ended","id":3,"seq":3,"time":1000080000,"device":"ELAN Touchscreen","region":null,"fingers":1,"location":{"x":0.5,"y":0.5},"count":1}"# + "\n")
    }

    @Test func regionEventsCarryLocalCoordinatesAsDocumented() throws {
        let tap = GestureEvent(kind: .tap, phase: .ended, id: 3, time: 1_000_080_000, region: "ok-button", fingers: 1,
                               location: Point(x: 0.45, y: 0.83), details: .tap(count: 1), regionRect: Rect(x: 0.4, y: 0.8, width: 0.2, height: 0.1))
        #expect(line(tap) == #"{"type":"gesture","gesture":"tap","phase":"ended","id":3,"seq":3,"time":1000080000,"device":"ELAN Touchscreen","region":"ok-button","fingers":1,"location":{"x":0.45,"y":0.83},"localLocation":{"x":0.25,"y":0.3},"count":1}"# + "\n")
        let values = DragValues(startLocation: Point(x: 0.5, y: 0.6), translation: Point(x: 0.1, y: 0),
                                velocity: Point(x: 1, y: 0), predictedEndLocation: Point(x: 1.099, y: 0.6), predictedEndTranslation: Point(x: 0.599, y: 0))
        let swipe = GestureEvent(kind: .swipe, phase: .ended, id: 9, time: 5, region: "page", fingers: 1, location: Point(x: 0.6, y: 0.6),
                                 details: .swipe(direction: .right, edge: nil, drag: values), regionRect: Rect(x: 0, y: 0.2, width: 1, height: 0.8))
        let object = try #require(JSONSerialization.jsonObject(with: Data(line(swipe).utf8)) as? [String: Any])
        #expect(object["localLocation"] as? [String: Double] == ["x": 0.6, "y": 0.5])
        #expect(object["localStartLocation"] as? [String: Double] == ["x": 0.5, "y": 0.5])
        #expect(line(swipe).contains(#""startLocation":{"x":0.5,"y":0.6},"localStartLocation":{"x":0.5,"y":0.5},"translation""#))
    }

    @Test func dragCarriesSwiftUIFieldNamesAndParsesAsJSON() throws {
        let values = DragValues(startLocation: Point(x: 0.1, y: 0.2), translation: Point(x: 0.25, y: -0.125),
                                velocity: Point(x: 1.23456, y: -0.5), predictedEndLocation: Point(x: 0.96, y: -0.17),
                                predictedEndTranslation: Point(x: 0.86, y: -0.37))
        let drag = GestureEvent(kind: .drag, phase: .changed, id: 7, time: 42, region: "map", fingers: 2,
                                location: Point(x: 0.35, y: 0.075), details: .drag(values))
        let text = line(drag)
        #expect(text.hasSuffix("}\n"))
        let object = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["gesture"] as? String == "drag")
        #expect(object["region"] as? String == "map")
        let velocity = try #require(object["velocity"] as? [String: Double])
        #expect(velocity["x"] == 1.2346)
        #expect(velocity["y"] == -0.5)
        #expect((object["translation"] as? [String: Double])?["y"] == -0.125)
        #expect(object["predictedEndTranslation"] != nil && object["startLocation"] != nil && object["predictedEndLocation"] != nil)
    }

    @Test func swipeWithoutEdgeWritesNull() {
        let values = DragValues(startLocation: .zero, translation: .zero, velocity: .zero, predictedEndLocation: .zero, predictedEndTranslation: .zero)
        let swipe = GestureEvent(kind: .swipe, phase: .ended, id: 1, time: 5, region: nil, fingers: 1,
                                 location: .zero, details: .swipe(direction: .left, edge: nil, drag: values))
        #expect(line(swipe).contains(#""direction":"left","edge":null,"startLocation""#))
        let fromEdge = GestureEvent(kind: .swipe, phase: .ended, id: 1, time: 5, region: nil, fingers: 1,
                                    location: .zero, details: .swipe(direction: .up, edge: .bottom, drag: values))
        #expect(line(fromEdge).contains(#""direction":"up","edge":"bottom""#))
    }

    @Test func pinchAndRotateFields() {
        let pinch = GestureEvent(kind: .pinch, phase: .changed, id: 1, time: 5, region: nil, fingers: 2, location: .zero, details: .pinch(scale: 1.5))
        let rotate = GestureEvent(kind: .rotate, phase: .changed, id: 2, time: 5, region: nil, fingers: 2, location: .zero, details: .rotate(degrees: -12.345))
        #expect(line(pinch).hasSuffix(#""scale":1.5}"# + "\n"))
        #expect(line(rotate).hasSuffix(#""rotation":-12.35}"# + "\n"))
    }

    @Test func numbersAreFixedPointTrimmedAndNeverInvalid() {
        func encoded(_ value: Double, _ digits: Int) -> String {
            var writer = JSONWriter()
            writer.number(value, digits: digits)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
        #expect(encoded(0, 5) == "0")
        #expect(encoded(-0.0, 5) == "0")
        #expect(encoded(-0.000001, 5) == "0")
        #expect(encoded(1, 5) == "1")
        #expect(encoded(0.05, 5) == "0.05")
        #expect(encoded(0.123456, 5) == "0.12346")
        #expect(encoded(-3.5, 2) == "-3.5")
        #expect(encoded(1234567.25, 2) == "1234567.25")
        #expect(encoded(.nan, 3) == "0")
        #expect(encoded(.infinity, 3) == "0")
    }

    @Test func stringsAreEscaped() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("device")
        writer.string("Quote \" back\\slash\nnew\u{01}line ünï")
        writer.endObject()
        let object = try #require(JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: String])
        #expect(object["device"] == "Quote \" back\\slash\nnew\u{01}line ünï")
    }

    @Test func deviceAndTouchLinesMatchTheDocumentedExamples() {
        var writer = JSONWriter()
        WireEncoder.appendDevice(.added, name: "ELAN Touchscreen", kind: "touchscreen", path: "/dev/input/event5", seq: 1, time: 5000, to: &writer)
        WireEncoder.appendDevice(.removed, name: "demo", kind: "replay", path: nil, seq: 2, time: 6000, to: &writer)
        let contact = Contact(id: 4, phase: .moved, location: Point(x: 0.25, y: 0.5), millimetres: .zero)
        WireEncoder.appendTouch(contact, time: 1_000_016_000, seq: 9, device: "ELAN Touchscreen", to: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == """
            {"type":"device","phase":"added","seq":1,"time":5000,"device":"ELAN Touchscreen","kind":"touchscreen","path":"/dev/input/event5"}
            {"type":"device","phase":"removed","seq":2,"time":6000,"device":"demo","kind":"replay","path":null}
            {"type":"touch","phase":"moved","touch":4,"seq":9,"time":1000016000,"device":"ELAN Touchscreen","location":{"x":0.25,"y":0.5}}

            """)
    }

    @Test func arraysSeparateTheirElements() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("a")
        writer.beginArray()
        writer.string("x")
        writer.integer(-2)
        writer.beginObject()
        writer.key("k")
        writer.null()
        writer.endObject()
        writer.beginArray()
        writer.endArray()
        writer.bool(true)
        writer.endArray()
        writer.key("b")
        writer.unsigned(3)
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"a":["x",-2,{"k":null},[],true],"b":3}"#)
    }
}

@Suite struct WireScannerTests {
    @Test func readsTheNumberAfterAKeyWithoutDecoding() {
        var writer = JSONWriter()
        let tap = GestureEvent(kind: .tap, phase: .ended, id: 3, time: 1_000_080_000, region: nil, fingers: 1,
                               location: Point(x: 0.5, y: 0.5), details: .tap(count: 1))
        WireEncoder.appendGesture(tap, seq: 42, device: "ELAN \"time\": Touchscreen", to: &writer)
        #expect(WireScanner.unsigned(after: Array(#""seq":"#.utf8), in: writer.bytes) == 42)
        // The first occurrence wins; the device name's fake key comes after the real one.
        #expect(WireScanner.unsigned(after: Array(#""time":"#.utf8), in: writer.bytes) == 1_000_080_000)
        #expect(WireScanner.unsigned(after: Array(#""dropped":"#.utf8), in: writer.bytes) == nil)
        #expect(WireScanner.unsigned(after: Array(#""device":"#.utf8), in: writer.bytes) == nil, "a string, not a number")
        #expect(WireScanner.unsigned(after: [], in: writer.bytes) == nil)
        writer.bytes.withUnsafeBufferPointer {
            #expect(WireScanner.unsigned(after: Array(#""id":"#.utf8), in: $0) == 3)
        }
    }
}
