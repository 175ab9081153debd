import Foundation
import GestureCore
import Recordings
import Testing

/// Damaged input never crashes or hangs: every prefix and every seeded corruption of a
/// sample of each format either parses or throws a RecordingError with a line in range.
@Suite("Damaged input")
struct RobustnessTests {
    static let samples: [(name: String, text: String)] = [
        (
            "evemu",
            "# EVEMU 1.3\nN: T\nI: 0003 04f3 010c 0110\nP: 02 00\nB: 03 03 00 00 00 00 80 60 02\nA: 35 0 3312 0 0 10\nA: 2f 0 9 0 0 0\nE: 0.000001 0003 0039 0006\t# c\nE: 0.000001 0000 0000 0000\n"
        ),
        (
            "evtest",
            "Input device ID: bus 0x18 vendor 0x0 product 0x0 version 0x1\nInput device name: \"pad\"\nSupported events:\n  Event type 3 (EV_ABS)\n    Event code 53 (ABS_MT_POSITION_X)\n      Value 0\n      Min 0\n      Max 100\n      Resolution 12 Event code 54 (ABS_MT_POSITION_Y)\n      Max 50\nEvent: time 1.000001, type 3 (EV_ABS), code 53 (ABS_MT_POSITION_X), value 5\nEvent: time 1.000002, -------------- SYN_REPORT ------------\n"
        ),
        (
            "getevent",
            "add device 1: /dev/input/event1\n  name: \"ts\"\n[    1.000001] EV_ABS       ABS_MT_POSITION_X    00000213\n[    1.000002] /dev/input/event1: EV_KEY BTN_TOUCH DOWN\n[    1.000003] EV_SYN       SYN_REPORT           00000000\n"
        ),
        ("libinput", libinputFixture),
    ]

    static func check(_ text: String, _ label: String) {
        do {
            _ = try RecordingReader.parse(text: text, path: label)
        } catch {
            let lineCount = text.split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(error.path == label)
            #expect((error.line ?? 1) >= 1 && (error.line ?? 1) <= max(lineCount, 1), "\(error)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test("every prefix of each sample", arguments: samples.map(\.name))
    func prefixes(_ name: String) {
        let bytes = Array(Self.samples.first { $0.name == name }!.text.utf8)
        for end in 0...bytes.count {
            Self.check(String(decoding: bytes[..<end], as: UTF8.self), "\(name)-prefix-\(end)")
        }
    }

    @Test("seeded byte corruption of each sample", arguments: samples.map(\.name))
    func corruption(_ name: String) {
        let original = Array(Self.samples.first { $0.name == name }!.text.utf8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        let alphabet = Array(" \t\n#:-[],.0123456789abcdefxEAN\u{7f}".utf8) + [0, 0xff]
        for round in 0..<400 {
            var bytes = original
            for _ in 0..<(1 + next() % 4) {
                let position = next() % bytes.count
                switch next() % 3 {
                case 0: bytes[position] = alphabet[next() % alphabet.count]
                case 1: bytes.remove(at: position)
                default: bytes.insert(alphabet[next() % alphabet.count], at: position)
                }
            }
            Self.check(String(decoding: bytes, as: UTF8.self), "\(name)-corrupt-\(round)")
        }
    }

    @Test("pathological lines: very long, deeply glued, huge numbers")
    func pathological() {
        Self.check("Input device name: \"x\"\n" + String(repeating: "Min 1 ", count: 100_000) + "\n", "glued")
        Self.check("N: x\nB: 01" + String(repeating: " ff", count: 5000) + "\n", "bitmask")
        Self.check("N: x\nE: 99999999999999999999.0 0003 0035 1\n", "time")
        Self.check("[ 18446744073709.551615] EV_ABS ABS_X ffffffff\n", "getevent-time")
        Self.check("devices:\n- node: x\n  evdev:\n    absinfo:\n      53: [0, 99999999999, 0, 0]\n", "absinfo")
        Self.check(String(repeating: "(", count: 50_000), "parens")
    }
}
