import Benchmark
import Foundation
import EngineWorkloads
import GestureCore

// The engine benchmark: throughput over the whole corpus
// held in memory, with and without JSON encoding, and heap allocations per frame, both in
// steady state and over the corpus. Results: docs/performance.md.
//
// Custom metrics carry the figures the issue asks for directly:
// - `events/s`, `frames/s`: input events (frames = SYN_REPORTs) through the pipeline per
//   second of wall time, measured around the loop inside each iteration;
// - heap allocations: `mallocCountTotal` of one measured region; a steady-state iteration
//   runs exactly 1000 frames, so it reads as mallocs per 1000 frames; a corpus iteration
//   runs the whole corpus, per-recording setup included (divide by its frame count,
//   printed first). Only wall clock is measured besides: the cpuTotal metric costs the
//   framework 16 mallocs of its own per measured region.

/// Loaded once, before any benchmark runs (outside every measurement).
let corpus = Corpus.load()

let eventsPerSecond = BenchmarkMetric.custom("events/s", polarity: .prefersLarger, useScalingFactor: false)
let framesPerSecond = BenchmarkMetric.custom("frames/s", polarity: .prefersLarger, useScalingFactor: false)

@inline(__always)
func nanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

func record(_ benchmark: Benchmark, events: Int, frames: Int, since start: UInt64) {
    let elapsed = Double(max(1, nanoseconds() - start))
    benchmark.measurement(eventsPerSecond, Int(Double(events) * 1e9 / elapsed))
    benchmark.measurement(framesPerSecond, Int(Double(frames) * 1e9 / elapsed))
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, eventsPerSecond, framesPerSecond],
        warmupIterations: 3,
        maxDuration: .seconds(5),
        maxIterations: 200
    )
    var probe = EncodingSink()
    replayCorpus(corpus, into: &probe) { sink, recording in sink.device = recording.device.name }
    probe.flush()
    print("corpus: \(corpus.fileCount) files, \(corpus.recordings.count) recordings, \(corpus.eventCount) events, \(corpus.frameCount) frames -> \(probe.emitted) gestures, \(probe.bytesWritten) bytes of JSON")

    // (a) ContactTracker + GestureEngine (DevicePipeline) over every recording, gestures
    // counted and discarded; a new pipeline per recording, as `gestured replay` does.
    Benchmark("Corpus: pipeline") { benchmark in
        var sink = CountingSink()
        benchmark.startMeasurement()
        let start = nanoseconds()
        replayCorpus(corpus, into: &sink)
        benchmark.stopMeasurement()
        record(benchmark, events: corpus.eventCount, frames: corpus.frameCount, since: start)
        blackHole(sink.checksum)
    }

    // (b) The same, every gesture encoded as its wire line (WireEncoder) into one reused buffer.
    Benchmark("Corpus: pipeline + JSON") { benchmark in
        var sink = EncodingSink()
        benchmark.startMeasurement()
        let start = nanoseconds()
        replayCorpus(corpus, into: &sink) { sink, recording in sink.device = recording.device.name }
        sink.flush()
        benchmark.stopMeasurement()
        record(benchmark, events: corpus.eventCount, frames: corpus.frameCount, since: start)
        blackHole(sink.bytesWritten)
    }

    // (a') The corpus with nested regions configured (a page, a grid of buttons, a corner):
    // every touch is offered to several regions.
    Benchmark("Corpus: pipeline, nested regions") { benchmark in
        var sink = CountingSink()
        benchmark.startMeasurement()
        let start = nanoseconds()
        replayCorpus(corpus, configuration: nestedRegions, into: &sink)
        benchmark.stopMeasurement()
        record(benchmark, events: corpus.eventCount, frames: corpus.frameCount, since: start)
        blackHole(sink.checksum)
    }

    // What the framework itself counts around an empty measured region: subtract it from
    // the malloc figures above (it is the same for every benchmark).
    Benchmark("Framework overhead (empty measured region)") { benchmark in
        benchmark.startMeasurement()
        blackHole(benchmark.currentIteration)
        benchmark.stopMeasurement()
    }

    // (c) Steady state: a warmed-up pipeline over long synthetic streams; each iteration is
    // exactly 1000 frames, so mallocCountTotal is mallocs per 1000 frames (target 0).
    steadyBenchmark("Steady: 10-finger drag+pinch+rotate, 240 Hz", stream: SyntheticStream.dragPinch(laps: 4), sink: CountingSink())
    steadyBenchmark("Steady: 10-finger drag+pinch+rotate, 240 Hz + JSON", stream: SyntheticStream.dragPinch(laps: 4), sink: EncodingSink(device: SyntheticStream.device.name))
    steadyBenchmark("Steady: tap / double tap / long press / 2-finger tap (timers)", stream: SyntheticStream.tapLongPress(laps: 8), sink: CountingSink())
    steadyBenchmark("Steady: tap / double tap / long press / 2-finger tap (timers) + JSON", stream: SyntheticStream.tapLongPress(laps: 8), sink: EncodingSink(device: SyntheticStream.device.name))
    steadyBenchmark("Steady: 10-finger drag+pinch+rotate, nested regions", stream: SyntheticStream.dragPinch(laps: 4), sink: CountingSink(), configuration: nestedRegions)
    steadyBenchmark("Steady: tap / double tap / long press / 2-finger tap (timers), nested regions", stream: SyntheticStream.tapLongPress(laps: 8), sink: CountingSink(), configuration: nestedRegions)
    steadyBenchmark("Steady: 10-finger drag+pinch+rotate, every touch filter", stream: SyntheticStream.dragPinch(laps: 4), sink: CountingSink(), touch: everyTouchFilter)
    steadyBenchmark("Steady: tap / double tap / long press / 2-finger tap (timers), every touch filter", stream: SyntheticStream.tapLongPress(laps: 8), sink: CountingSink(), touch: everyTouchFilter)
}

/// Frames per steady-state iteration.
let steadyFrames = 1000

func steadyBenchmark<S: CountedSink>(_ name: String, stream: SyntheticStream, sink: S, configuration: EngineConfiguration = EngineConfiguration(), touch: TouchHygieneSettings = TouchHygieneSettings()) {
    let steady = SteadyPipeline(stream: stream, sink: sink, configuration: configuration, touch: touch)
    // Warm up over several laps of the stream (every buffer reaches its working size).
    steady.run(frames: stream.frames * 3)
    print("\(name): \(stream.frames) frames, \(stream.events.count) events per pass; warm-up emitted \(steady.gestureCount) gestures")
    Benchmark(name, configuration: .init(warmupIterations: 10)) { benchmark in
        benchmark.startMeasurement()
        let start = nanoseconds()
        steady.run(frames: steadyFrames)
        benchmark.stopMeasurement()
        record(benchmark, events: Int(Double(steadyFrames) * steady.eventsPerFrame), frames: steadyFrames, since: start)
    }
}
