import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import PropertyBased
import Recordings
import Testing

/// Random evdev event streams through the whole pipeline (tracker, engine, wire encoder),
/// on the device shapes the corpus holds: protocol B with and without resolution,
/// protocol A, single touch, and a SEMI_MT touchpad that counts fingers with BTN_TOOL_*.
@Suite("pipeline properties over random event streams")
struct PipelinePropertyTests {
    static let devices: [DeviceDescription] = {
        let mtAxes: (Int32, Int32, Int32) -> [UInt16: AbsInfo] = { maxX, maxY, resolution in
            [
                ABS.x: AbsInfo(minimum: 0, maximum: maxX, resolution: resolution),
                ABS.y: AbsInfo(minimum: 0, maximum: maxY, resolution: resolution),
                ABS.mtPositionX: AbsInfo(minimum: 0, maximum: maxX, resolution: resolution),
                ABS.mtPositionY: AbsInfo(minimum: 0, maximum: maxY, resolution: resolution),
                ABS.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
            ]
        }
        var protocolB = DeviceDescription(
            name: "ELAN-like", properties: [INPUTPROP.direct],
            codes: [EV.key: [BTN.touch]], absInfo: mtAxes(3312, 1872, 10))
        protocolB.absInfo[ABS.mtSlot] = AbsInfo(minimum: 0, maximum: 9)
        protocolB.absInfo[ABS.mtToolType] = AbsInfo(minimum: 0, maximum: 2)
        var resolutionZero = protocolB
        resolutionZero.name = "Atmel-like"
        resolutionZero.absInfo = mtAxes(799, 479, 0)
        resolutionZero.absInfo[ABS.mtSlot] = AbsInfo(minimum: 0, maximum: 9)
        let protocolA = DeviceDescription(name: "N-Trig-like", codes: [EV.key: [BTN.touch]], absInfo: mtAxes(9600, 7200, 0))
        let singleTouch = DeviceDescription(
            name: "3M-like", properties: [INPUTPROP.direct], codes: [EV.key: [BTN.touch]],
            absInfo: [ABS.x: AbsInfo(minimum: 0, maximum: 32767), ABS.y: AbsInfo(minimum: 0, maximum: 32767)])
        var semiMT = DeviceDescription(
            name: "Synaptics-like", properties: [INPUTPROP.pointer, INPUTPROP.semiMT],
            codes: [EV.key: [BTN.touch, BTN.toolFinger, BTN.toolDoubleTap, BTN.toolTripleTap]],
            absInfo: mtAxes(5472, 4448, 0))
        semiMT.absInfo[ABS.mtSlot] = AbsInfo(minimum: 0, maximum: 1)
        return [protocolB, resolutionZero, protocolA, singleTouch, semiMT]
    }()

    /// Decodes random integers into a stream that is mostly plausible touch input (slots,
    /// tracking ids, positions, reports, holds long enough for long presses) with noise:
    /// palms, SYN_DROPPED, garbage codes and time going backwards.
    static func events(from script: [Int]) -> [InputEvent] {
        var events: [InputEvent] = []
        var time: UInt64 = 1_000_000
        func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: Timestamp(microseconds: time), type: type, code: code, value: value))
        }
        for value in script {
            let slot = Int32(value / 16 % 3)
            let x = Int32(value / 64 % 3300)
            let y = Int32(value / 211_200 % 1800)
            time &+= UInt64(1_000 + value % 40_000)
            switch value % 16 {
            case 0...5:
                add(EV.abs, ABS.mtSlot, slot)
                if value % 16 == 0 { add(EV.abs, ABS.mtTrackingID, Int32(value % 1000)) }
                add(EV.abs, ABS.mtPositionX, x)
                add(EV.abs, ABS.mtPositionY, y)
                add(EV.abs, ABS.x, x)
                add(EV.abs, ABS.y, y)
                if value % 16 == 0 { add(EV.key, BTN.touch, 1) }
            case 6, 7:
                add(EV.abs, ABS.mtSlot, slot)
                add(EV.abs, ABS.mtTrackingID, -1)
                add(EV.key, BTN.touch, 0)
            case 8:
                add(EV.abs, ABS.mtPositionX, x)
                add(EV.abs, ABS.mtPositionY, y)
                add(EV.syn, SYN.mtReport, 0)
            case 9:
                add(EV.key, [BTN.toolFinger, BTN.toolDoubleTap, BTN.toolTripleTap][Int(slot)], Int32(value / 7 % 2))
            case 10:
                time &+= UInt64(value % 900_000)  // a hold: long presses and multi-tap windows expire
            case 11:
                add(EV.abs, ABS.mtToolType, value % 3 == 0 ? MTTool.palm : MTTool.finger)
            case 12:
                if value % 5 == 0 { add(EV.syn, SYN.dropped, 0) } else { time &-= UInt64(value % 30_000) }
            case 13:
                add(UInt16(value % 6), UInt16(value / 6 % 0x300), Int32(truncatingIfNeeded: value &* 2_654_435_761))
            default:
                break
            }
            add(EV.syn, SYN.report, 0)
        }
        return events
    }

    static let scripts = Gen.int(in: 0...99_999_999).array(of: 1...150)

    @Test func streamsKeepEveryPromiseOnTheWire() async {
        await propertyCheck(count: 250, input: Self.scripts, Gen.int(in: 0...(Self.devices.count - 1))) { script, which in
            let recording = Recording(path: "random", format: .evemu, device: Self.devices[which], events: Self.events(from: script))
            var replayer = Replayer(configuration: Configuration())
            let events = replayer.gestures(of: recording)
            #expect(GestureStreamValidator.violations(in: events).isEmpty)

            // No press (one touch sequence) both taps and long-presses.
            var tapped = false
            var held = false
            for event in events {
                if event.kind == .press, event.phase == .began { (tapped, held) = (false, false) }
                if event.kind == .tap { tapped = true }
                if event.kind == .longPress, event.phase == .began { held = true }
                #expect(!(tapped && held), "a touch became both a tap and a long press")
            }

            // The wire: one valid JSON line per event, seq strictly increasing from 1.
            var bytes: [UInt8] = []
            replayer.replay(recording) { bytes += $0 }
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
            #expect(lines.count == events.count)
            var lastSeq = 0
            for line in lines {
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                let seq = object?["seq"] as? Int ?? -1
                #expect(seq == lastSeq + 1)
                lastSeq = seq
            }
        }
    }
}

extension PipelinePropertyTests {
    /// The generator must reach what the properties are about: taps, long presses, drags and
    /// cancellations all occur across a fixed sample of scripts (else the property is vacuous).
    @Test func generatorReachesEveryOutcome() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % 100_000_000)
        }
        var kinds: [String: Int] = [:]
        for run in 0..<200 {
            let script = (0..<150).map { _ in next() }
            let recording = Recording(
                path: "random", format: .evemu, device: Self.devices[run % Self.devices.count],
                events: Self.events(from: script))
            for event in Replayer(configuration: Configuration()).gestures(of: recording) {
                kinds[event.phase == .cancelled ? "cancelled" : event.kind.rawValue, default: 0] += 1
            }
        }
        for kind in ["tap", "long-press", "drag", "press", "cancelled"] {
            #expect(kinds[kind, default: 0] > 0, "random streams never produced \(kind): \(kinds)")
        }
    }
}
