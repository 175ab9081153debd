import GestureProtocol
import PropertyBased
import Testing

/// Random message → line → message: whatever the encoder writes, the decoder reads back as
/// the same message, and writing that again gives the same bytes.
@Suite struct RoundTripTests {
    /// A message or request is built from a list of random numbers (shrinking shortens and
    /// lowers the list, so a failure comes back as a small message).
    static let draws = Gen.uint64(in: 0...UInt64.max).array(of: 1...60)

    @Test func everyServerMessageSurvivesEncodingAndDecoding() async {
        await propertyCheck(count: 2000, input: Self.draws) { numbers in
            var draw = Draw(numbers)
            let message = draw.serverMessage()
            let line = WireEncoder.encode(message)
            #expect(line.last == UInt8(ascii: "\n"))
            #expect(line.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") }, "one line: \(text(line))")
            let decoded: ServerMessage
            do {
                decoded = try WireDecoder.message(line)
            } catch {
                Issue.record("\(error) in \(text(line))")
                return
            }
            #expect(decoded == message, "\(text(line))")
            #expect(WireEncoder.encode(decoded) == line)
        }
    }

    @Test func everyRequestSurvivesEncodingAndDecoding() async {
        await propertyCheck(count: 1000, input: Self.draws) { numbers in
            var draw = Draw(numbers)
            let request = draw.request()
            let line = WireEncoder.encode(request)
            let decoded: ClientRequest
            do {
                decoded = try WireDecoder.request(line)
            } catch {
                Issue.record("\(error) in \(text(line))")
                return
            }
            #expect(decoded == request, "\(text(line))")
            #expect(WireEncoder.encode(decoded) == line)
        }
    }

    /// An event line encoded once with an open `seq` slot gives, for any `seq`, the bytes of
    /// the message encoded with that `seq`.
    @Test func anEventLineFillsItsSeqSlotAsTheEncoderWouldWriteIt() async {
        await propertyCheck(count: 1000, input: Self.draws, Gen.uint64(in: 0...UInt64.max)) { numbers, seq in
            var draw = Draw(numbers)
            var message = draw.eventMessage()
            let eventLine: EventLine
            switch message {
            case .gesture(var gesture):
                eventLine = EventLine(gesture)
                gesture.seq = seq
                message = .gesture(gesture)
            case .touch(var touch):
                eventLine = EventLine(touch)
                touch.seq = seq
                message = .touch(touch)
            case .device(var device):
                eventLine = EventLine(device)
                device.seq = seq
                message = .device(device)
            case .activity(var activity):
                eventLine = EventLine(activity)
                activity.seq = seq
                message = .activity(activity)
            default:
                Issue.record("not an event: \(message)")
                return
            }
            var line: [UInt8] = Array("previous line\n".utf8)
            eventLine.append(seq: seq, to: &line)
            #expect(line == Array("previous line\n".utf8) + WireEncoder.encode(message))
        }
    }
}

private func text(_ line: [UInt8]) -> String { String(decoding: line, as: UTF8.self) }

/// Turns a list of random numbers into protocol values; past the end of the list it goes on
/// with a fixed mix of what it has read, so every list gives a complete value.
struct Draw {
    private let numbers: [UInt64]
    private var next = 0
    private var state: UInt64 = 0x9E37_79B9_7F4A_7C15

    init(_ numbers: [UInt64]) {
        self.numbers = numbers
    }

    mutating func number() -> UInt64 {
        defer { next += 1 }
        if next < numbers.count { return numbers[next] }
        // SplitMix64 over the position, seeded by the list.
        state &+= 0x9E37_79B9_7F4A_7C15 &+ (numbers.first ?? 0)
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ count: Int) -> Int { Int(number() % UInt64(count)) }

    mutating func bool() -> Bool { number() % 2 == 0 }

    mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }

    mutating func pick<T: CaseIterable>(_: T.Type) -> T where T.AllCases == [T] { pick(T.allCases) }

    /// Small numbers most of the time, the extremes sometimes.
    mutating func unsigned() -> UInt64 {
        switch below(4) {
        case 0: UInt64(below(100))
        case 1: pick([0, 1, UInt64(Int.max), .max - 1, .max])
        default: number()
        }
    }

    mutating func integer() -> Int {
        switch below(4) {
        case 0: below(10)
        case 1: pick([0, -1, .min, .max])
        default: Int(truncatingIfNeeded: number())
        }
    }

    /// A number the encoder writes exactly with `digits` fraction digits (an integer of at
    /// most 15 digits over 10^digits), so the decoded Double is the same one.
    mutating func fixedPoint(digits: Int) -> Double {
        let scale = [1.0, 1e1, 1e2, 1e3, 1e4, 1e5][digits]
        let mantissa = Int64(truncatingIfNeeded: number()) % (below(2) == 0 ? 2_000_000 : 999_999_999_999_999)
        return Double(mantissa) / scale
    }

    mutating func point(digits: Int = WireEncoder.locationDigits) -> Point {
        Point(x: fixedPoint(digits: digits), y: fixedPoint(digits: digits))
    }

    /// Names with everything JSON must escape, multi-byte UTF-8 and nothing at all.
    mutating func string() -> String {
        let pieces = [
            "a", "Z", "ELAN Touchscreen", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}",
            "é", "€", "\u{2028}", "😀", "{", "}", ":", ",", "[", "null",
        ]
        return (0..<below(8)).map { _ in pick(pieces) }.joined()
    }

    mutating func optional<T>(_ make: (inout Draw) -> T) -> T? { bool() ? make(&self) : nil }

    mutating func device() -> DeviceInfo {
        DeviceInfo(name: string(), kind: pick(DeviceInfo.Kind.self), path: optional { $0.string() })
    }

    mutating func devices() -> [DeviceInfo] { (0..<below(4)).map { _ in device() } }

    mutating func drag(inRegion: Bool, edge: ScreenEdge?) -> GestureMessage.Drag {
        GestureMessage.Drag(
            startLocation: point(), localStartLocation: inRegion ? point() : nil, edge: edge, translation: point(),
            velocity: point(digits: WireEncoder.velocityDigits), predictedEndLocation: point(), predictedEndTranslation: point())
    }

    mutating func gesture() -> GestureMessage {
        let region = optional { $0.string() }
        let inRegion = region != nil
        let details: GestureMessage.Details
        switch pick(GestureKind.self) {
        case .press: details = .press
        case .tap: details = .tap(count: integer())
        case .longPress: details = .longPress
        case .drag: details = .drag(drag(inRegion: inRegion, edge: optional { $0.pick(ScreenEdge.self) }))
        case .swipe:
            let edge = optional { $0.pick(ScreenEdge.self) }
            details = .swipe(direction: pick(SwipeDirection.self), edge: edge, drag: drag(inRegion: inRegion, edge: edge))
        case .pinch:
            details = .pinch(scale: fixedPoint(digits: WireEncoder.scaleDigits), velocity: fixedPoint(digits: WireEncoder.velocityDigits))
        case .rotate:
            details = .rotate(
                degrees: fixedPoint(digits: WireEncoder.angleDigits), velocity: fixedPoint(digits: WireEncoder.velocityDigits))
        }
        return GestureMessage(
            phase: pick(GesturePhase.self), id: unsigned(), seq: unsigned(), time: Timestamp(microseconds: unsigned()),
            device: string(), region: region, fingers: integer(), location: point(),
            localLocation: inRegion ? point() : nil, details: details)
    }

    mutating func eventMessage() -> ServerMessage {
        switch below(4) {
        case 0: .gesture(gesture())
        case 1:
            .touch(
                TouchMessage(
                    phase: pick(TouchPhase.self), touch: unsigned(), seq: unsigned(), time: Timestamp(microseconds: unsigned()),
                    device: string(), location: point()))
        case 2:
            .device(
                DeviceMessage(phase: pick(DevicePhase.self), seq: unsigned(), time: Timestamp(microseconds: unsigned()), device: device()))
        default: .activity(ActivityMessage(phase: pick(ActivityPhase.self), seq: unsigned(), time: Timestamp(microseconds: unsigned())))
        }
    }

    mutating func serverMessage() -> ServerMessage {
        switch below(10) {
        case 0: .hello(HelloMessage(protocol: integer(), server: string(), version: string(), devices: devices()))
        case 1, 2, 3: eventMessage()
        case 4: .pong(time: Timestamp(microseconds: unsigned()))
        case 5:
            .status(
                StatusMessage(
                    protocol: integer(), version: string(), uptime: unsigned(),
                    lastTouch: optional { Timestamp(microseconds: $0.unsigned()) },
                    devices: devices(), clients: integer(), maxClients: integer(),
                    counters: StatusMessage.Counters(
                        events: unsigned(), sent: unsigned(), dropped: unsigned(), connections: unsigned(),
                        rejected: unsigned(), slowDisconnects: unsigned())))
        case 6: .error(message: string())
        case 7: .overflow(dropped: unsigned())
        case 8: .goodbye(reason: string())
        default: .unknown(type: pick(["welcome", "heartbeat", "Gesture", "tap", ""]) + string())
        }
    }

    mutating func request() -> ClientRequest {
        switch below(3) {
        case 0: .ping
        case 1: .status
        default:
            .subscribe(
                SubscribeRequest(
                    gestures: optional { draw in (0..<draw.below(8)).map { _ in draw.pick(GestureKind.self) } },
                    regions: optional { draw in (0..<draw.below(4)).map { _ in draw.optional { $0.string() } } },
                    devices: optional { draw in (0..<draw.below(4)).map { _ in draw.string() } },
                    touches: bool()))
        }
    }
}
