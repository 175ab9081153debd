import Daemon
import Foundation
import GestureProtocol
import Testing

/// `run --replay`'s clocks (`ReplayTimeline`): no recorded time and no accepted speed can
/// make a conversion trap, and each pass starts where the last ended.
@Suite struct ReplayTimelineTests {
    static let extremes: [Timestamp] = [
        0, 1, 2_700_000_000, 1_284_881_103_697_884, 1_000_000_000_000_000, Timestamp(microseconds: .max / 2),
        Timestamp(microseconds: .max - 1), .distantFuture,
    ]
    static let speeds = [ReplayTimeline.speedRange.lowerBound, 0.5, 1, 40, ReplayTimeline.speedRange.upperBound]

    /// Every conversion, for recorded times far before and after the clock and every
    /// speed at the ends of the range, gives a time and keeps the order of its inputs.
    @Test(arguments: speeds)
    func conversionsSaturateAndKeepOrder(speed: Double) {
        for first in Self.extremes {
            for now in Self.extremes {
                var timeline = ReplayTimeline(firstRecordedTime: first, speed: speed, now: now)
                #expect(timeline.monotonic(timeline.pipelineTime(recorded: first)) == now, "the first event plays at once")
                for pass in 0..<2 {
                    var previous: (recorded: Timestamp, pipeline: Timestamp, monotonic: Timestamp)? = nil
                    for recorded in Self.extremes.sorted() {
                        let pipeline = timeline.pipelineTime(recorded: recorded)
                        let monotonic = timeline.monotonic(pipeline)
                        #expect(monotonic >= now)
                        if let previous {
                            #expect(pipeline >= previous.pipeline && monotonic >= previous.monotonic, "pass \(pass): order kept")
                        }
                        previous = (recorded, pipeline, monotonic)
                        _ = timeline.playing(monotonic)
                    }
                    timeline.startPass(after: timeline.pipelineTime(recorded: .distantFuture))
                }
            }
        }
    }

    /// A crash this guards against: a recording stamped later than the host's CLOCK_MONOTONIC
    /// (most real ones: an evemu file carries the recording machine's clock) loops.
    @Test func aPassStartsAfterThePreviousWhateverTheRecordedTimes() {
        let first: Timestamp = 1_284_881_103_697_884  // evemu-data/3m.event
        let last = first + .seconds(5)
        var timeline = ReplayTimeline(firstRecordedTime: first, speed: 10, now: 2_700_000_000)
        let end = timeline.pipelineTime(recorded: last)
        #expect(end == 2_705_000_000)
        #expect(timeline.monotonic(end) == 2_700_500_000, "five recorded seconds at speed 10")
        timeline.startPass(after: end)
        #expect(timeline.pipelineTime(recorded: first) == end + .microseconds(1))
        #expect(timeline.pipelineTime(recorded: last) == end + .microseconds(1) + .seconds(5))
    }

    /// Times before the first event (recordings are not always in order) play at once
    /// rather than wrapping to the far future.
    @Test func anEarlierTimeThanTheFirstPlaysAtOnce() {
        let timeline = ReplayTimeline(firstRecordedTime: 1_000_000_000_000_000, speed: 1, now: 3_000_000)
        #expect(timeline.pipelineTime(recorded: 500_000) == 0)
        #expect(timeline.monotonic(timeline.pipelineTime(recorded: 500_000)) == 3_000_000)
        #expect(timeline.pipelineTime(recorded: 999_999_999_000_000) == 2_000_000)
    }
}
