import GestureProtocol

/// Everything between one device's raw events and its gestures: a ContactTracker feeding
/// TouchHygiene feeding a GestureEngine. The daemon keeps one per device; `gestured replay`
/// one per recording. Pure and clock-free like its parts: time enters with the events and
/// with `advance(to:)`. Touch hygiene sits here, in one place, so the gestures, the `touch`
/// lines (`frame`) and the pass-through clone (`hiddenTouches`) agree on every touch.
public struct DevicePipeline {
    public private(set) var tracker: ContactTracker
    public private(set) var hygiene: TouchHygiene
    public private(set) var engine: GestureEngine

    /// - Parameters:
    ///   - touch: the `[touch]` filters (all off by default: the tracker's frames go to the
    ///     engine unchanged).
    ///   - previous: the pipeline this one replaces after a reload: touches down keep the
    ///     hygiene decisions they began with.
    public init(
        device: DeviceDescription, geometry: DeviceGeometry, configuration: EngineConfiguration,
        touch: TouchHygieneSettings = TouchHygieneSettings(), replacing previous: DevicePipeline? = nil
    ) {
        tracker = ContactTracker(device: device, geometry: geometry)
        hygiene = TouchHygiene(
            settings: touch, slop: Thresholds(configuration.defaults).tapSlop, inheriting: previous?.hygiene)
        tracker.tracksSources = hygiene.isActive
        engine = GestureEngine(
            configuration: configuration, surface: PhysicalSize(width: tracker.surface.width, height: tracker.surface.height))
    }

    /// The last frame the engine saw (the tracker's, without what touch hygiene hides):
    /// what `touch` lines and the metrics show.
    public var frame: TouchFrame { hygiene.isActive ? hygiene.frame : tracker.frame }

    /// The sources whose touch the pass-through clone must not show (dropped, held, stuck).
    public var hiddenTouches: HiddenTouches { hygiene.hidden }

    /// Feeds one event; when it completes a frame, the engine classifies the frame (firing
    /// any timer due before it first). Returns true when a frame was completed. Every frame
    /// made (touch hygiene's deadline frames before it too, and `cancelContacts`' frame) goes
    /// to `sink.frameMade` before the engine and to `sink.frameClassified` after it. Inlined,
    /// with the tracker's `feed`: an event that completes no frame (most) is then one call
    /// from the caller's loop.
    @inline(__always) @discardableResult
    public mutating func feed<S: GestureSink>(_ event: InputEvent, into sink: inout S) -> Bool {
        guard tracker.feed(event) else { return false }
        // Out of line, so that without touch hygiene this stays as small as it was (the
        // optimiser inlines it into every caller).
        if hygiene.isActive { return processFiltered(into: &sink) }
        Self.classify(tracker.frame, by: &engine, into: &sink)
        return true
    }

    /// The tracker's frame through touch hygiene, then the engine: hygiene deadlines due
    /// before the frame (a held touch accepted, a stuck one ended) come first, each a frame
    /// of its own.
    @inline(never)
    private mutating func processFiltered<S: GestureSink>(into sink: inout S) -> Bool {
        fireHygieneDeadlines(upTo: tracker.frame.time, into: &sink)
        return filterAndClassify(into: &sink)
    }

    /// The tracker's frame through touch hygiene, and what it lets through to the engine;
    /// false when it let no frame through.
    @inline(__always)
    private mutating func filterAndClassify<S: GestureSink>(into sink: inout S) -> Bool {
        guard hygiene.process(tracker.frame, sources: tracker.sources, report: { sink.touchFiltered($0) }) else { return false }
        Self.classify(hygiene.frame, by: &engine, into: &sink)
        return true
    }

    /// The one route of every frame the pipeline makes: shown to the sink, classified, shown
    /// again. Static, so that the frame is borrowed from the tracker or touch hygiene while
    /// the engine alone is mutated.
    @inline(__always)
    private static func classify<S: GestureSink>(_ frame: TouchFrame, by engine: inout GestureEngine, into sink: inout S) {
        sink.frameMade(frame)
        engine.process(frame, into: &sink)
        sink.frameClassified(frame)
    }

    /// Receives every recognizer state transition and every touch hygiene decision (nil:
    /// none are formatted).
    public var transitionLog: ((String) -> Void)? {
        get { engine.transitionLog }
        set {
            engine.transitionLog = newValue
            hygiene.log = newValue
        }
    }

    /// The earliest timer the engine or touch hygiene waits for (long press, multi-tap
    /// window, hold-duration, stuck-after), if any.
    /// Inlinable: called before every event, and a call from another module through `self`
    /// copied the whole pipeline (a memcpy per event, 8 % of the engine's instructions).
    @inlinable
    public var nextDeadline: Timestamp? {
        // Without touch hygiene its deadline is always nil: one load and a branch.
        guard let filter = hygiene.nextDeadline else { return engine.nextDeadline }
        return min(filter, engine.nextDeadline ?? .distantFuture)
    }

    /// Fires every timer due at or before `time`; a frame touch hygiene makes at a deadline
    /// (a held touch accepted, a stuck one ended) goes the way `feed`'s frames go.
    public mutating func advance<S: GestureSink>(to time: Timestamp, into sink: inout S) {
        if hygiene.isActive { fireHygieneDeadlines(upTo: time, into: &sink) }
        engine.advance(to: time, into: &sink)
    }

    private mutating func fireHygieneDeadlines<S: GestureSink>(upTo time: Timestamp, into sink: inout S) {
        while hygiene.fireNextDeadline(upTo: time, report: { sink.touchFiltered($0) }) {
            Self.classify(hygiene.frame, by: &engine, into: &sink)
        }
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
    /// That frame takes every frame's route (`frameMade`, the engine, `frameClassified`):
    /// every touch a client was shown ends (`touch` lines `cancelled`), and the daemon's idle
    /// watch learns that the device has no finger down (after a reload the finger may lift
    /// unseen by the new tracker).
    @discardableResult
    public mutating func cancelContacts<S: GestureSink>(at time: Timestamp, into sink: inout S) -> Bool {
        guard tracker.cancelAll(at: time) else { return false }
        guard hygiene.isActive else {
            Self.classify(tracker.frame, by: &engine, into: &sink)
            return true
        }
        return filterAndClassify(into: &sink)
    }

    /// End of a finite stream (a recording): fingers still down are cancelled, then the
    /// timers that remain (an exclusive tap's multi-tap window) fire at their deadlines, so
    /// nothing is left pending and nothing is silently lost.
    public mutating func finish<S: GestureSink>(at time: Timestamp, into sink: inout S) {
        cancelContacts(at: time, into: &sink)
        var remainingTimers = Self.maximumTimersAtFinish
        while let deadline = nextDeadline, remainingTimers > 0 {
            advance(to: deadline, into: &sink)
            remainingTimers -= 1
        }
        engine.cancelAll(at: time, into: &sink)
    }

    /// A bound on the timers fired by `finish`, so a misbehaving recognizer cannot hang a replay.
    public static let maximumTimersAtFinish = 64
}
