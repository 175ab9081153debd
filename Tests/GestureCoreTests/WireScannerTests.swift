import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

@Suite struct WireScannerTests {
    @Test func readsTheNumberAfterAKeyWithoutDecoding() {
        let tap = GestureEvent(
            .tap(count: 1), phase: .ended, id: 3, time: 1_000_080_000, region: nil, fingers: 1,
            location: Point(x: 0.5, y: 0.5))
        let line = WireEncoder.encode(.gesture(GestureMessage(tap, device: "ELAN \"time\": Touchscreen", seq: 42)))
        #expect(WireScanner.unsigned(after: Array(#""seq":"#.utf8), in: line) == 42)
        // The first occurrence wins; the device name's fake key comes after the real one.
        #expect(WireScanner.unsigned(after: Array(#""time":"#.utf8), in: line) == 1_000_080_000)
        #expect(WireScanner.unsigned(after: Array(#""dropped":"#.utf8), in: line) == nil)
        #expect(WireScanner.unsigned(after: Array(#""device":"#.utf8), in: line) == nil, "a string, not a number")
        #expect(WireScanner.unsigned(after: [], in: line) == nil)
        line.withUnsafeBufferPointer {
            #expect(WireScanner.unsigned(after: Array(#""id":"#.utf8), in: $0) == 3)
        }
    }
}
