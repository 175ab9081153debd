import GestureProtocol

/// Everything between one device's raw events and its gestures: a ContactTracker feeding a
/// GestureEngine. The daemon keeps one per device; `gestured replay` one per recording.
/// Pure and clock-free like its parts: time enters with the events and with `advance(to:)`.
public struct DevicePipeline {
    public private(set) var tracker: ContactTracker
    public private(set) var engine: GestureEngine

    public init(device: DeviceDescription, geometry: DeviceGeometry, configuration: EngineConfiguration) {
        tracker = ContactTracker(device: device, geometry: geometry)
        engine = GestureEngine(
            configuration: configuration, surface: PhysicalSize(width: tracker.surface.width, height: tracker.surface.height))
    }

    /// Feeds one event; when it completes a frame, the engine classifies the frame (firing
    /// any timer due before it first). Returns true when a frame was completed.
    @discardableResult
    public mutating func feed<S: GestureSink>(_ event: InputEvent, into sink: inout S) -> Bool {
        feed(event, into: &sink) { _, _ in }
    }

    /// As `feed(_:into:)`, showing a completed frame to `beforeEngine` before the engine
    /// classifies it (the daemon's idle watch: `active` goes out before the waking touch's
    /// gestures).
    @discardableResult
    public mutating func feed<S: GestureSink>(_ event: InputEvent, into sink: inout S, beforeEngine: (TouchFrame, inout S) -> Void) -> Bool
    {
        guard tracker.feed(event) else { return false }
        beforeEngine(tracker.frame, &sink)
        engine.process(tracker.frame, into: &sink)
        return true
    }

    /// Receives every recognizer state transition (nil: none are formatted).
    public var transitionLog: ((String) -> Void)? {
        get { engine.transitionLog }
        set { engine.transitionLog = newValue }
    }

    /// The earliest timer the engine waits for (long press, multi-tap window), if any.
    /// Inlinable: called before every event, and a call from another module through `self`
    /// copied the whole pipeline (a memcpy per event, 8 % of the engine's instructions).
    @inlinable
    public var nextDeadline: Timestamp? { engine.nextDeadline }

    /// Fires every timer due at or before `time`.
    public mutating func advance<S: GestureSink>(to time: Timestamp, into sink: inout S) {
        engine.advance(to: time, into: &sink)
    }

    /// The device is gone or its state was lost: every contact and every gesture in flight
    /// ends as cancelled.
    public mutating func cancelAll<S: GestureSink>(at time: Timestamp, into sink: inout S) {
        cancelContacts(at: time, into: &sink)
        engine.cancelAll(at: time, into: &sink)
    }

    /// Every contact still down ends as cancelled (one frame); the engine's timers stay
    /// armed. The first step of `finish`, for callers that fire the timers themselves
    /// (`gestured run --replay` waits for them in real time). Returns true when a frame was made.
    @discardableResult
    public mutating func cancelContacts<S: GestureSink>(at time: Timestamp, into sink: inout S) -> Bool {
        guard tracker.cancelAll(at: time) else { return false }
        engine.process(tracker.frame, into: &sink)
        return true
    }

    /// End of a finite stream (a recording): fingers still down are cancelled, then the
    /// timers that remain (an exclusive tap's multi-tap window) fire at their deadlines, so
    /// nothing is left pending and nothing is silently lost.
    public mutating func finish<S: GestureSink>(at time: Timestamp, into sink: inout S) {
        cancelContacts(at: time, into: &sink)
        var remainingTimers = Self.maximumTimersAtFinish
        while let deadline = engine.nextDeadline, remainingTimers > 0 {
            engine.advance(to: deadline, into: &sink)
            remainingTimers -= 1
        }
        engine.cancelAll(at: time, into: &sink)
    }

    /// A bound on the timers fired by `finish`, so a misbehaving recognizer cannot hang a replay.
    public static let maximumTimersAtFinish = 64
}
