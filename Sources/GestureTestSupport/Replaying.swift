import GestureCore
import Recordings

extension Replayer {
    /// Replays one recording and returns the gesture events.
    public func gestures(of recording: Recording) -> [GestureEvent] {
        var sink = CollectingSink()
        replay(recording, into: &sink)
        return sink.events
    }
}
