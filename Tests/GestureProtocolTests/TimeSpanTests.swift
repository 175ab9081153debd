import GestureProtocol
import Testing

/// `TimeSpan` from a Swift `Duration`: the one conversion between the standard library's
/// clocks (the watchdog interval, `gesturectl actions`' clock) and the loop's microseconds.
@Suite struct TimeSpanTests {
    @Test func durationTruncatesToTheMicrosecond() {
        #expect(TimeSpan(.seconds(3)) == .microseconds(3_000_000))
        #expect(TimeSpan(.milliseconds(1_500)) == .microseconds(1_500_000))
        #expect(TimeSpan(.nanoseconds(1_999)) == .microseconds(1), "truncated, not rounded")
        #expect(TimeSpan(.zero) == .zero)
    }

    @Test func negativeAndHugeDurationsClamp() {
        #expect(TimeSpan(.seconds(-1)) == .zero)
        #expect(TimeSpan(.nanoseconds(-1)) == .zero)
        #expect(TimeSpan(.seconds(Int64.max)) == .infinite)
        #expect(TimeSpan(.seconds(18_446_744_073_709)) == .microseconds(18_446_744_073_709_000_000))
    }
}
