import Foundation
import GestureProtocol
import Testing

/// The `metrics` request and reply (docs/protocol.md "Replies and notices").
@Suite struct MetricsMessageTests {
    static let sample = MetricsMessage(
        uptime: 7, devices: [DeviceInfo(name: "Panel \"A\"", kind: .replay, path: nil)], clients: 2, dropped: 5, lastTouch: nil,
        gestures: [
            .init(device: "Panel \"A\"", region: nil, counts: [.init(gesture: .tap, phase: .ended, count: 3)]),
            .init(
                device: MetricsMessage.otherLabel, region: "menu",
                counts: [.init(gesture: .longPress, phase: .began, count: 1), .init(gesture: .pinch, phase: .cancelled, count: 2)]),
        ],
        inputs: [.init(device: "Panel \"A\"", touches: 9, synDropped: 1)],
        latency: .init(buckets: [.init(le: 100, count: 1), .init(le: 250, count: 4)], count: 6, sum: 12_345))

    @Test func theRequestRoundTrips() throws {
        #expect(String(decoding: WireEncoder.encode(ClientRequest.metrics), as: UTF8.self) == "{\"type\":\"metrics\"}\n")
        #expect(try WireDecoder.request(Array(#"{"type":"metrics"}"#.utf8)) == .metrics)
    }

    @Test func theRequestRefusesFields() {
        #expect(throws: ProtocolError.self) { try WireDecoder.request(Array(#"{"type":"metrics","since":3}"#.utf8)) }
    }

    @Test func theReplyRoundTripsWithNullsEscapesAndTheOtherLabel() throws {
        let line = WireEncoder.encode(.metrics(Self.sample))
        #expect(try WireDecoder.message(line) == .metrics(Self.sample))
        var touched = Self.sample
        touched.lastTouch = 1_746_158_656_250_000
        #expect(try WireDecoder.message(WireEncoder.encode(.metrics(touched))) == .metrics(touched))
    }

    @Test func filteredTouchesRoundTripAsAnObjectByReasonAndAreLeftOutWhenNone() throws {
        var filtered = Self.sample
        filtered.inputs[0].filtered = [.init(reason: "bounce", count: 3), .init(reason: "too-short", count: 1)]
        let line = String(decoding: WireEncoder.encode(.metrics(filtered)), as: UTF8.self)
        #expect(line.contains(#""synDropped":1,"filtered":{"bounce":3,"too-short":1}}"#))
        #expect(try WireDecoder.message(Array(line.utf8)) == .metrics(filtered))
        #expect(!String(decoding: WireEncoder.encode(.metrics(Self.sample)), as: UTF8.self).contains("filtered"))
        let wrongType = line.replacingOccurrences(of: #""filtered":{"bounce":3,"too-short":1}"#, with: #""filtered":[3]"#)
        #expect(throws: ProtocolError.self) { try WireDecoder.message(Array(wrongType.utf8)) }
    }

    @Test func aReplyMissingAFieldNamesIt() throws {
        let line = String(decoding: WireEncoder.encode(.metrics(Self.sample)), as: UTF8.self)
        let withoutSynDropped = line.replacingOccurrences(of: #","synDropped":1"#, with: "")
        #expect(withoutSynDropped != line)
        do {
            _ = try WireDecoder.message(Array(withoutSynDropped.utf8))
            Issue.record("decoded without inputs.synDropped")
        } catch {
            #expect(error.field == "inputs.synDropped")
            #expect(error.problem == .missingField)
        }
        let badPhase = line.replacingOccurrences(of: #""phase":"cancelled""#, with: #""phase":"over""#)
        #expect(throws: ProtocolError.self) { try WireDecoder.message(Array(badPhase.utf8)) }
        let nullGestures = line.replacingOccurrences(of: #""gestures":["#, with: #""gestures":null,"x":["#)
        #expect(throws: ProtocolError.self) { try WireDecoder.message(Array(nullGestures.utf8)) }
    }
}
