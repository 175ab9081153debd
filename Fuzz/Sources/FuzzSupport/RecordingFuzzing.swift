import GestureCore
import GestureTestSupport
@testable import Recordings

/// One recording reader's whole path on any bytes: the reader itself, then, for what it
/// accepts, the engine over the recording (its gestures checked as `CheckedSink` checks
/// them), and the public entry (`RecordingReader.parse`: format detection, description
/// lookup and inference). A rejected file must give an error that is safe to print.
public func fuzzRecordingReader(_ format: RecordingFormat, _ input: UnsafeRawBufferPointer) {
    let bytes = input.assumingMemoryBound(to: UInt8.self)
    let source = Source(path: "/nonexistent/fuzz.recording")
    do throws(RecordingError) {
        let streams: [ParsedStream]
        switch format {
        case .evemu: streams = [try EvemuParser.parse(bytes, source, fallbackName: "fuzz")]
        case .evtest: streams = [try EvtestParser.parse(bytes, source)]
        case .getevent: streams = try GeteventParser.parse(bytes, source)
        case .libinputRecord: streams = try LibinputRecordParser.parse(bytes, source)
        }
        for stream in streams where !stream.events.isEmpty {
            let device = stream.device ?? DeviceInference.describe(name: stream.nameHint ?? "fuzz", events: stream.events)
            replay(Recording(path: source.path, format: format, device: device, events: stream.events))
        }
    } catch {
        requireDisplaySafe(error.description, "recording error")
    }
    do throws(RecordingError) {
        for recording in try RecordingReader.parse(text: String(decoding: bytes, as: UTF8.self), path: source.path) {
            replay(recording)
        }
    } catch {
        requireDisplaySafe(error.description, "recording error")
    }
}

private func replay(_ recording: Recording) {
    var sink = CheckedSink()
    for event in Replayer(configuration: Configuration()).gestures(of: recording) {
        sink.emit(event)
    }
    sink.finish()
}
