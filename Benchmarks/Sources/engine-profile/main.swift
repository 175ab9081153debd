import EngineWorkloads
import Foundation
import GestureCore

// `engine-profile WORKLOAD [PASSES]`: runs one benchmark workload outside the benchmark
// framework, for valgrind (see docs/performance.md):
//   valgrind --tool=callgrind .build/release/engine-profile corpus-json 1
// Workloads: corpus, corpus-json, drag-pinch, tap-long-press, and the same with nested
// regions configured: corpus-regions, drag-pinch-regions, tap-long-press-regions, and with
// every touch hygiene filter on: drag-pinch-hygiene, tap-long-press-hygiene.
// `engine-profile dump [FILE]` writes the JSON of every gesture of the corpus, with the
// default configuration and then with nested regions, to FILE, or to standard output
// without one (its count then goes to standard error): the encoder's output to compare
// byte for byte before and after a change (docs/performance.md).
let arguments = CommandLine.arguments.dropFirst()
let workload = arguments.first ?? "corpus"
let passes = arguments.dropFirst().first.flatMap { Int($0) } ?? 1

switch workload {
case "corpus-regions":
    let corpus = Corpus.load()
    var sink = CountingSink()
    for _ in 0..<passes { replayCorpus(corpus, configuration: nestedRegions, into: &sink) }
    print("\(workload): \(passes) × (\(corpus.eventCount) events, \(corpus.frameCount) frames) -> \(sink.emitted) gestures")
case "drag-pinch-regions", "tap-long-press-regions":
    let stream = workload == "drag-pinch-regions" ? SyntheticStream.dragPinch(laps: 4) : SyntheticStream.tapLongPress(laps: 8)
    let steady = SteadyPipeline(stream: stream, sink: CountingSink(), configuration: nestedRegions)
    steady.run(frames: stream.frames * passes)
    print("\(workload): \(stream.frames * passes) frames, \(stream.events.count * passes) events -> \(steady.gestureCount) gestures")
case "drag-pinch-hygiene", "tap-long-press-hygiene":
    let stream = workload == "drag-pinch-hygiene" ? SyntheticStream.dragPinch(laps: 4) : SyntheticStream.tapLongPress(laps: 8)
    let steady = SteadyPipeline(stream: stream, sink: CountingSink(), touch: everyTouchFilter)
    steady.run(frames: stream.frames * passes)
    print("\(workload): \(stream.frames * passes) frames, \(stream.events.count * passes) events -> \(steady.gestureCount) gestures")
case "corpus", "corpus-json":
    let corpus = Corpus.load()
    var gestures = 0
    for _ in 0..<passes {
        if workload == "corpus" {
            var sink = CountingSink()
            replayCorpus(corpus, into: &sink)
            gestures += sink.emitted
        } else {
            var sink = EncodingSink()
            replayCorpus(corpus, into: &sink) { sink, recording in sink.device = recording.device.name }
            sink.flush()
            gestures += sink.emitted
        }
    }
    print("\(workload): \(passes) × (\(corpus.eventCount) events, \(corpus.frameCount) frames) -> \(gestures) gestures")
case "dump":
    let path = arguments.dropFirst().first
    let corpus = Corpus.load()
    var sink = EncodingSink()
    sink.kept = []
    for configuration in [nil, nestedRegions] {
        replayCorpus(corpus, configuration: configuration, into: &sink) { sink, recording in sink.device = recording.device.name }
    }
    sink.flush()
    let output = sink.kept ?? []
    if let path {
        guard FileManager.default.createFile(atPath: path, contents: Data(output)) else {
            FileHandle.standardError.write(Data("engine-profile dump: cannot write \(path)\n".utf8))
            exit(1)
        }
        print("dump: \(sink.emitted) gestures, \(output.count) bytes to \(path)")
    } else {
        FileHandle.standardOutput.write(Data(output))
        FileHandle.standardError.write(Data("dump: \(sink.emitted) gestures, \(output.count) bytes\n".utf8))
    }
case "drag-pinch", "tap-long-press":
    let stream = workload == "drag-pinch" ? SyntheticStream.dragPinch(laps: 4) : SyntheticStream.tapLongPress(laps: 8)
    let steady = SteadyPipeline(stream: stream, sink: CountingSink())
    steady.run(frames: stream.frames * passes)
    print("\(workload): \(stream.frames * passes) frames, \(stream.events.count * passes) events -> \(steady.gestureCount) gestures")
default:
    print("unknown workload \(workload): corpus, corpus-json, drag-pinch, tap-long-press, corpus-regions, drag-pinch-regions, tap-long-press-regions, drag-pinch-hygiene, tap-long-press-hygiene, dump [FILE]")
}
