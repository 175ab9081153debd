import GestureProtocol
import Testing

/// The decoder is strict where docs/protocol.md says so and says exactly what is wrong.
@Suite struct DecoderTests {
    private func requestError(_ line: String) -> ProtocolError? {
        failure(of: { bytes throws(ProtocolError) in try WireDecoder.request(bytes) }, line)
    }

    private func messageError(_ line: String) -> ProtocolError? {
        failure(of: { bytes throws(ProtocolError) in try WireDecoder.message(bytes) }, line)
    }

    /// The gesture `line` decodes to; nil for another message.
    private func gesture(_ line: String) throws -> GestureMessage? {
        if case .gesture(let gesture) = try WireDecoder.message(Array(line.utf8)) { gesture } else { nil }
    }

    /// The error `decode` throws for `line`; nil when it decodes.
    private func failure<Decoded>(of decode: ([UInt8]) throws(ProtocolError) -> Decoded, _ line: String) -> ProtocolError? {
        do {
            _ = try decode(Array(line.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        // Not JSON, at the byte where it stops being JSON.
        ("not json", ProtocolError.Problem.malformedJSON, nil as String?, 1),
        (#"{"type":"ping""#, .malformedJSON, nil, 14),
        (#"{"type":"ping"} x"#, .malformedJSON, nil, 16),
        (#"{"type":"ping",}"#, .malformedJSON, nil, 15),
        (#"{"type":"subscribe","gestures":[01]}"#, .malformedJSON, nil, 33),
        ("{\"type\":\"subscribe\",\"devices\":[\"a\u{1}\"]}", .malformedJSON, nil, 33),
        (#"{"type":"subscribe","devices":["\ud800"]}"#, .malformedJSON, nil, 38),
        (#"{"type":"subscribe","devices":[tru]}"#, .malformedJSON, nil, 34),
        // JSON, but not a request.
        ("[1,2]", .notAnObject, nil, 0),
        (#"  "ping""#, .notAnObject, nil, 2),
        (#"{"kind":"ping"}"#, .missingType, nil, 0),
        (#"{"type":7}"#, .missingType, nil, 0),
        (#"{"type":"launch-missiles"}"#, .unknownRequestType("launch-missiles"), "type", 8),
        // Fields.
        (#"{"type":"ping","id":7}"#, .unknownField, "id", 15),
        (#"{"type":"status","verbose":true}"#, .unknownField, "verbose", 17),
        (#"{"type":"subscribe","colour":"red"}"#, .unknownField, "colour", 20),
        (#"{"type":"subscribe","touches":1}"#, .wrongType(expected: "true or false"), "touches", 30),
        (#"{"type":"subscribe","gestures":"tap"}"#, .wrongType(expected: "an array of strings"), "gestures", 31),
        (#"{"type":"subscribe","gestures":[1]}"#, .wrongType(expected: "an array of strings"), "gestures", 32),
        (#"{"type":"subscribe","devices":[null]}"#, .wrongType(expected: "an array of strings"), "devices", 31),
        (#"{"type":"subscribe","regions":[2]}"#, .wrongType(expected: "an array of strings (null: outside every region)"), "regions", 31),
        (
            #"{"type":"subscribe","gestures":["tap","wave"]}"#,
            .unknownName("wave", what: "gesture", known: GestureKind.allCases.map(\.rawValue)), "gestures", 38
        ),
    ])
    func badRequestsAreRefusedWithTheProblemFieldAndByte(line: String, problem: ProtocolError.Problem, field: String?, offset: Int) {
        let error = requestError(line)
        #expect(error?.problem == problem)
        #expect(error?.field == field)
        #expect(error?.offset == offset)
        #expect(error?.isRequest == true)
    }

    @Test func errorsReadAsTheDaemonRepliesThem() {
        #expect(requestError("not json")?.description == "malformed JSON at byte 1")
        #expect(requestError(#"{"type":"ping","id":7}"#)?.description == #"unknown ping field "id""#)
        #expect(
            requestError(#"{"type":"subscribe","gestures":["wave"]}"#)?.description
                == #"unknown gesture "wave" (known: press, tap, long-press, drag, swipe, pinch, rotate)"#)
        #expect(requestError(#"{"type":"subscribe","touches":1}"#)?.description == #""touches" must be true or false"#)
        #expect(messageError(#"{"type":"gesture","gesture":"press"}"#)?.description == #"gesture message needs "phase""#)
    }

    @Test func nullFiltersAndEscapedKeysAreRequestsToo() throws {
        #expect(
            try WireDecoder.request(Array(#" { "type" : "subscribe" , "gestures" : null , "touches" : null } "#.utf8))
                == .subscribe(SubscribeRequest()))
        #expect(try WireDecoder.request(Array(#"{"\u0074ype":"ping"}"#.utf8)) == .ping)
        #expect(try WireDecoder.request(Array("{\"type\":\"ping\"}\n".utf8)) == .ping, "with its newline")
        #expect(
            try WireDecoder.request(Array(#"{"type":"subscribe","regions":["a",null],"devices":[],"touches":true}"#.utf8))
                == .subscribe(SubscribeRequest(regions: ["a", nil], devices: [], touches: true)))
    }

    @Test func deepNestingIsRefusedNotRecursedInto() {
        let deep = #"{"type":"ping","x":"# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        #expect(requestError(deep)?.problem == .malformedJSON)
        let allowed = #"{"type":"subscribe","x":"# + String(repeating: "[", count: 60) + String(repeating: "]", count: 60) + "}"
        #expect(requestError(allowed)?.field == "x", "within the limit: read, then refused as an unknown field")
    }

    @Test func invalidUTF8IsMalformedAtItsByte() {
        let line: [UInt8] = Array(#"{"type":"ping","#.utf8) + [0xC3, 0x28] + Array("}".utf8)
        #expect(throws: ProtocolError(.malformedJSON, isRequest: true, offset: 15)) { try WireDecoder.request(line) }
    }

    @Test func messagesIgnoreUnknownFieldsAndTypes() throws {
        let pong = #"{"type":"pong","later":{"nested":[1,2,{"x":null}]},"time":12,"z":"é"}"#
        #expect(try WireDecoder.message(Array(pong.utf8)) == .pong(time: Timestamp(microseconds: 12)))
        #expect(try WireDecoder.message(Array(#"{"type":"heartbeat","n":1}"#.utf8)) == .unknown(type: "heartbeat"))
    }

    @Test(arguments: [
        (#"{"type":"pong"}"#, ProtocolError.Problem.missingField, "time"),
        (#"{"type":"pong","time":-1}"#, .wrongType(expected: "an unsigned integer"), "time"),
        (#"{"type":"pong","time":1.5}"#, .wrongType(expected: "an unsigned integer"), "time"),
        (#"{"type":"pong","time":18446744073709551616}"#, .wrongType(expected: "an unsigned integer below 2^64"), "time"),
        (#"{"type":"touch","phase":"moved","touch":1,"seq":1,"time":1,"device":"d","location":{"x":0}}"#, .missingField, "location.y"),
        (
            #"{"type":"touch","phase":"moved","touch":1,"seq":1,"time":1,"device":"d","location":[0,0]}"#,
            .wrongType(expected: #"an object {"x":…,"y":…}"#), "location"
        ),
        (
            #"{"type":"touch","phase":"lifted","touch":1,"seq":1,"time":1,"device":"d","location":{"x":0,"y":0}}"#,
            .unknownName("lifted", what: "touch phase", known: TouchPhase.allCases.map(\.rawValue)), "phase"
        ),
        (
            #"{"type":"gesture","gesture":"tap","phase":"ended","id":1,"seq":1,"time":1,"device":"d","region":null,"fingers":1,"location":{"x":0,"y":0}}"#,
            .missingField, "count"
        ),
        (
            #"{"type":"gesture","gesture":"tap","phase":"ended","id":1,"seq":1,"time":1,"device":"d","fingers":1,"location":{"x":0,"y":0},"count":1}"#,
            .missingField, "region"
        ),
        (
            #"{"type":"gesture","gesture":"pinch","phase":"ended","id":1,"seq":1,"time":1,"device":"d","region":null,"fingers":2,"location":{"x":0,"y":0},"scale":1e999}"#,
            .wrongType(expected: "a finite number"), "scale"
        ),
        (
            #"{"type":"status","protocol":1,"version":"v","uptime":1,"devices":[],"clients":0,"maxClients":1,"counters":{"events":0}}"#,
            .missingField, "counters.sent"
        ),
        (
            #"{"type":"hello","protocol":1,"server":"gestured","version":"v","devices":[{"name":"n","kind":"mouse","path":null}]}"#,
            .unknownName("mouse", what: "device kind", known: ["touchscreen", "touchpad", "replay"]), "devices.kind"
        ),
    ])
    func badMessagesNameTheirField(line: String, problem: ProtocolError.Problem, field: String) {
        let error = messageError(line)
        #expect(error?.problem == problem)
        #expect(error?.field == field)
        #expect(error?.isRequest == false)
    }

    @Test func numbersKeepTheirValue() throws {
        let line =
            #"{"type":"gesture","gesture":"rotate","phase":"changed","id":1,"seq":2,"time":3,"device":"d","region":null,"fingers":2,"location":{"x":-0.5,"y":1e-3},"velocity":-2.5e1,"rotation":1234567890.123456789}"#
        guard case .gesture(let gesture) = try WireDecoder.message(Array(line.utf8)) else {
            Issue.record("not a gesture")
            return
        }
        #expect(gesture.location == Point(x: -0.5, y: 0.001))
        #expect(gesture.rotation == 1234567890.123456789)
    }

    /// `velocity` is a point for a drag and a number for a pinch or rotate, wherever the
    /// line puts its `gesture`; the other shape is an error naming the field.
    @Test func velocityIsAPointForADragAndANumberForAPinchOrRotate() throws {
        let common = #""phase":"changed","id":1,"seq":2,"time":3,"device":"d","region":null,"fingers":2,"location":{"x":0.5,"y":0.5}"#
        let pinch = #"{"type":"gesture","gesture":"pinch","# + common + #","velocity":1.5,"scale":1.2}"#
        let rotateFirst = #"{"type":"gesture","velocity":-90,"rotation":4,"# + common + #","gesture":"rotate"}"#
        guard case .gesture(let decodedPinch) = try WireDecoder.message(Array(pinch.utf8)),
            case .gesture(let decodedRotate) = try WireDecoder.message(Array(rotateFirst.utf8))
        else {
            Issue.record("not gestures")
            return
        }
        #expect(decodedPinch.details == .pinch(scale: 1.2, velocity: 1.5))
        #expect(decodedRotate.details == .rotate(degrees: 4, velocity: -90))
        #expect(decodedRotate.transformVelocity == -90)
        let moves =
            #","edge":"left","startLocation":{"x":0,"y":0},"translation":{"x":0,"y":0},"predictedEndLocation":{"x":0,"y":0},"predictedEndTranslation":{"x":0,"y":0}"#
        let numberForADrag = #"{"type":"gesture","gesture":"drag","# + common + moves + #","velocity":2}"#
        #expect(messageError(numberForADrag)?.problem == .wrongType(expected: #"an object {"x":…,"y":…}"#))
        #expect(messageError(numberForADrag)?.field == "velocity")
        let pointForAPinch = #"{"type":"gesture","velocity":{"x":1,"y":0},"gesture":"pinch","# + common + #","scale":1}"#
        #expect(messageError(pointForAPinch)?.problem == .wrongType(expected: "a number"))
        #expect(messageError(pointForAPinch)?.field == "velocity")
        let dragWithoutVelocity = #"{"type":"gesture","gesture":"drag","# + common + moves + "}"
        #expect(messageError(dragWithoutVelocity)?.problem == .missingField && messageError(dragWithoutVelocity)?.field == "velocity")
        let drag = #"{"type":"gesture","gesture":"drag","# + common + moves + #","velocity":{"x":1,"y":2}}"#
        guard case .gesture(let decodedDrag) = try WireDecoder.message(Array(drag.utf8)) else {
            Issue.record("not a gesture")
            return
        }
        #expect(decodedDrag.edge == .left && decodedDrag.drag?.edge == .left && decodedDrag.drag?.velocity == Point(x: 1, y: 2))
    }

    /// A daemon older than the pinch's and rotate's `velocity` sends lines without it: they
    /// read with velocity 0 (no estimate, as at `began`), and this encoder always writes it.
    @Test func aPinchOrRotateWithoutVelocityReadsAsZeroAndIsWrittenWithIt() throws {
        let common = #""phase":"changed","id":1,"seq":2,"time":3,"device":"d","region":null,"fingers":2,"location":{"x":0.5,"y":0.5}"#
        let pinch = #"{"type":"gesture","gesture":"pinch","# + common + #","scale":1.2}"#
        let rotate = #"{"type":"gesture","gesture":"rotate","# + common + #","rotation":4}"#
        #expect(try gesture(pinch)?.details == .pinch(scale: 1.2, velocity: 0))
        let decodedRotate = try #require(try gesture(rotate))
        #expect(decodedRotate.details == .rotate(degrees: 4, velocity: 0))
        let encoded = String(decoding: WireEncoder.encode(.gesture(decodedRotate)), as: UTF8.self)
        #expect(encoded.contains(#""velocity":0,"rotation":4}"#), "\(encoded)")
    }
}
