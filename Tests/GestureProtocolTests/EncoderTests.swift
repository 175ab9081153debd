import Testing

@testable import GestureProtocol

@Suite struct EncoderTests {
    private func text(_ message: ServerMessage) -> String { String(decoding: WireEncoder.encode(message), as: UTF8.self) }

    private static let stillDrag = GestureMessage.Drag(
        startLocation: .zero, translation: .zero, velocity: .zero,
        predictedEndLocation: .zero, predictedEndTranslation: .zero)

    private func gesture(_ details: GestureMessage.Details, region: String? = nil, localLocation: Point? = nil) -> ServerMessage {
        .gesture(
            GestureMessage(
                phase: .changed, id: 7, seq: 8, time: Timestamp(microseconds: 42), device: "d", region: region, fingers: 2,
                location: Point(x: 0.35, y: 0.075), localLocation: localLocation, details: details))
    }

    @Test func dragFieldsComeInTheDocumentedOrderWithTheirOwnPrecision() {
        let drag = GestureMessage.Drag(
            startLocation: Point(x: 0.1, y: 0.2), localStartLocation: Point(x: 0.5, y: 1),
            translation: Point(x: 0.25, y: -0.125), velocity: Point(x: 1.23456, y: -0.5),
            predictedEndLocation: Point(x: 0.96, y: -0.17), predictedEndTranslation: Point(x: 0.86, y: -0.37))
        #expect(
            text(gesture(.drag(drag), region: "map", localLocation: Point(x: 0.123456, y: 0)))
                == #"{"type":"gesture","gesture":"drag","phase":"changed","id":7,"seq":8,"time":42,"device":"d","region":"map","fingers":2,"location":{"x":0.35,"y":0.075},"localLocation":{"x":0.12346,"y":0},"edge":null,"startLocation":{"x":0.1,"y":0.2},"localStartLocation":{"x":0.5,"y":1},"translation":{"x":0.25,"y":-0.125},"velocity":{"x":1.2346,"y":-0.5},"predictedEndLocation":{"x":0.96,"y":-0.17},"predictedEndTranslation":{"x":0.86,"y":-0.37}}"#
                + "\n")
    }

    @Test func swipeWritesItsDirectionAndANullEdge() {
        #expect(
            text(gesture(.swipe(direction: .left, edge: nil, drag: Self.stillDrag))).contains(
                #""direction":"left","edge":null,"startLocation""#))
        #expect(
            text(gesture(.swipe(direction: .up, edge: .bottom, drag: Self.stillDrag))).contains(
                #""direction":"up","edge":"bottom","startLocation""#))
    }

    @Test func dragWritesTheEdgeItStartedFrom() {
        var drag = Self.stillDrag
        drag.edge = .top
        #expect(text(gesture(.drag(drag))).contains(#""location":{"x":0.35,"y":0.075},"edge":"top","startLocation""#))
    }

    @Test func pinchAndRotateFieldsCarryTheirVelocityAsANumber() {
        #expect(text(gesture(.pinch(scale: 1.5, velocity: 0.75))).hasSuffix(#""velocity":0.75,"scale":1.5}"# + "\n"))
        #expect(
            text(gesture(.rotate(degrees: -12.345, velocity: -90.123456))).hasSuffix(#""velocity":-90.1235,"rotation":-12.35}"# + "\n"))
        #expect(text(gesture(.longPress)).contains(#""gesture":"long-press""#))
    }

    @Test func numbersAreFixedPointTrimmedAndNeverInvalid() {
        func encoded(_ value: Double, _ digits: Int) -> String {
            var bytes: [UInt8] = []
            JSONWriter.append(to: &bytes, bound: JSONWriter.numberLength) { $0.number(value, digits: digits) }
            return String(decoding: bytes, as: UTF8.self)
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
        #expect(encoded(1e300, 3) == "0", "beyond 64 bits of fixed point")
    }

    /// Rounding is half away from zero, without a conversion's range checks below 2^51:
    /// every tie k + 0.5 goes up (adding 2^52 alone rounds ties to even), and
    /// values around 2^51, 2^52 and 2^53 agree with Swift's `rounded()`.
    @Test func roundingIsHalfAwayFromZeroEverywhere() {
        for k in 0..<2_000 {
            let tie = Double(k) + 0.5
            #expect(JSONWriter.roundedHalfAwayFromZero(tie) == UInt64(k + 1), "\(tie)")
            for value in [Double(k), tie.nextDown, tie.nextUp, Double(k) + 0.25, Double(k) + 0.75] {
                #expect(JSONWriter.roundedHalfAwayFromZero(value) == UInt64(value.rounded()), "\(value)")
            }
        }
        for exponent in [50, 51, 52, 53, 62] {
            let power = Double(sign: .plus, exponent: exponent, significand: 1)
            for value in [power, power.nextDown, power.nextUp, power - 0.5, power + 0.5, power - 1.5, power * 0.75 + 0.5] {
                #expect(JSONWriter.roundedHalfAwayFromZero(value) == UInt64(value.rounded()), "2^\(exponent): \(value)")
            }
        }
        #expect(JSONWriter.roundedHalfAwayFromZero(0) == 0)
        #expect(JSONWriter.roundedHalfAwayFromZero(.leastNonzeroMagnitude) == 0)
    }

    @Test func stringsAreEscapedAndReadBack() throws {
        let name = "Quote \" back\\slash\nnew\u{01}line\u{1F} ünï 😀"
        let line = WireEncoder.encode(ServerMessage.error(message: name))
        #expect(
            String(decoding: line, as: UTF8.self) == #"{"type":"error","message":"Quote \" back\\slash\nnew\u0001line\u001f ünï 😀"}"# + "\n"
        )
        #expect(try WireDecoder.message(line) == .error(message: name))
    }

    @Test func subscribeLeavesOutTheFiltersItDoesNotSet() {
        #expect(
            WireEncoder.encode(ClientRequest.subscribe(SubscribeRequest())) == Array(#"{"type":"subscribe","touches":false}"#.utf8) + [0x0A]
        )
        let every = SubscribeRequest(gestures: [.longPress], regions: [nil, "a"], devices: ["x"], touches: true)
        #expect(
            WireEncoder.encode(ClientRequest.subscribe(every))
                == Array(#"{"type":"subscribe","gestures":["long-press"],"regions":[null,"a"],"devices":["x"],"touches":true}"#.utf8) + [
                    0x0A
                ])
        #expect(WireEncoder.encode(ClientRequest.ping) == Array(#"{"type":"ping"}"#.utf8) + [0x0A])
    }

    @Test func appendingAddsToWhatIsThere() {
        var buffer = Array("x".utf8)
        WireEncoder.append(ServerMessage.overflow(dropped: 3), to: &buffer)
        WireEncoder.append(ClientRequest.status, to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "x{\"type\":\"overflow\",\"dropped\":3}\n{\"type\":\"status\"}\n")
    }

    @Test func theSeqSlotIsWhereTheNumberGoes() {
        let touch = TouchMessage(
            phase: .moved, touch: 4, seq: 0, time: Timestamp(microseconds: 1_000_016_000), device: "ELAN Touchscreen",
            location: Point(x: 0.25, y: 0.5))
        let line = EventLine(touch)
        var bytes: [UInt8] = []
        line.append(seq: 9, to: &bytes)
        line.append(seq: 18_446_744_073_709_551_615, to: &bytes)
        #expect(
            String(decoding: bytes, as: UTF8.self) == """
                {"type":"touch","phase":"moved","touch":4,"seq":9,"time":1000016000,"device":"ELAN Touchscreen","location":{"x":0.25,"y":0.5}}
                {"type":"touch","phase":"moved","touch":4,"seq":18446744073709551615,"time":1000016000,"device":"ELAN Touchscreen","location":{"x":0.25,"y":0.5}}

                """)
    }

    @Test func arraysSeparateTheirElements() {
        var bytes: [UInt8] = []
        JSONWriter.append(to: &bytes, bound: 64) { writer in
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
        }
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"a":["x",-2,{"k":null},[],true],"b":3}"#)
    }

    /// Integers are written with as many digits as they have, counted from their bit length:
    /// every power of ten and of two, one below and one above, and the largest,
    /// against Swift's own `description`.
    @Test func integersHaveEveryDigitAtEveryPowerOfTenAndTwo() {
        var values: [UInt64] = [0, 1, 9, .max, .max - 1]
        var power: UInt64 = 10
        for _ in 1...19 {
            values += [power - 1, power, power + 1]
            if power <= UInt64.max / 10 { power *= 10 }
        }
        for bit in 1...63 { values += [(1 << bit) - 1, 1 << bit, (1 << bit) + 1] }
        for value in values {
            #expect(text(.overflow(dropped: value)) == #"{"type":"overflow","dropped":\#(value)}"# + "\n")
        }
    }

    /// An enum's wire name is copied as two overlapping words: every name of
    /// every kind, and constants of every length from 0 to 20 (the word copies cover 4…16),
    /// byte for byte as `raw` writes them, after a comma.
    @Test func namesOfEveryLengthAreCopiedWhole() {
        func written(_ name: StaticString, by write: (inout JSONWriter, StaticString) -> Void) -> [UInt8] {
            var bytes: [UInt8] = Array("x".utf8)
            JSONWriter.append(to: &bytes, bound: 64) { writer in
                writer.raw("1")
                write(&writer, name)
            }
            return bytes
        }
        let lengths: [StaticString] = [
            "", "a", "ab", "abc", "abcd", "abcde", "abcdef",
            "abcdefg", "abcdefgh", "abcdefghi", "abcdefghij", "abcdefghijk", "abcdefghijkl", "abcdefghijklm",
            "abcdefghijklmn", "abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnopq", "abcdefghijklmnopqr", "abcdefghijklmnopqrs",
            "abcdefghijklmnopqrst",
        ]
        func names<Name: QuotedWireName>(_: Name.Type) -> [StaticString] { Name.allCases.map(\.quotedName) }
        let every =
            lengths + names(GestureKind.self) + names(GesturePhase.self) + names(TouchPhase.self) + names(ActivityPhase.self)
            + names(DevicePhase.self) + names(DeviceInfo.Kind.self) + names(SwipeDirection.self) + names(ScreenEdge.self)
        for name in every {
            let expected = Array("x1,".utf8) + Array(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            #expect(written(name) { $0.name($1) } == expected, "\(name)")
            #expect(written(name) { $0.raw($1) } == expected, "\(name)")
        }
    }

    /// Strings are copied eight bytes at a time and their last few bytes as one overlapping
    /// word: every length up to 26 with an escape at every position (and with one
    /// in a whole word and one in the tail), against a byte-by-byte escaper, and read back.
    @Test func stringsOfEveryLengthAreEscapedWhereverTheEscapeFalls() throws {
        func expected(_ text: String) -> String {
            var out = "\""
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""): out += "\\\""
                case UInt8(ascii: "\\"): out += "\\\\"
                case UInt8(ascii: "\n"): out += "\\n"
                case 0..<0x20: out += "\\u00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
                default: out += String(decoding: [byte], as: UTF8.self)
                }
            }
            return out + "\""
        }
        let plain = Array("Cypress APA Trackpad (cyapa)".utf8)
        let escapes: [UInt8] = [UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "\n"), 0x01]
        for length in 0...26 {
            var cases: [[UInt8]] = [Array(plain[..<length])]
            for position in 0..<length {
                for escape in escapes {
                    var bytes = Array(plain[..<length])
                    bytes[position] = escape
                    cases.append(bytes)
                    if position < length - 8 {
                        bytes[length - 1] = UInt8(ascii: "\"")
                        cases.append(bytes)
                    }
                }
            }
            for bytes in cases {
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(WireEncoder.jsonString(text) == expected(text), "\(bytes)")
                #expect(try WireDecoder.message(WireEncoder.encode(ServerMessage.error(message: text))) == .error(message: text))
            }
        }
    }
}
