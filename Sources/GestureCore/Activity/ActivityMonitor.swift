import GestureProtocol

/// Whether anyone touched any device lately (`[daemon] idle-timeout`): `idle` once no
/// touch was seen for the timeout (never while a finger rests on a device), `active` at
/// the first touch after that. Pure: time comes in with every input; the daemon arms a
/// timer for `deadline` and calls `advance(to:)` when it fires. Tests drive it with a
/// virtual clock.
public struct ActivityMonitor: Sendable {
    /// A change clients are told about.
    public enum Change: Sendable, Hashable {
        /// No touch since `at` minus the timeout.
        case idle(at: Timestamp)
        /// A touch at `at` after idle.
        case active(at: Timestamp)
    }

    private enum State: Sendable, Hashable, CustomStringConvertible {
        /// `idle-timeout = 0`.
        case off
        /// Touches may come; idle at `quietSince + timeout`, or never while a finger is
        /// down (`quietSince` nil).
        case watching(quietSince: Timestamp?)
        /// Idle since `since`; the next touch makes it active.
        case idle(since: Timestamp)

        var description: String {
            switch self {
            case .off: "off"
            case .watching(let quietSince?): "watching (quiet since \(quietSince))"
            case .watching(nil): "watching (fingers down)"
            case .idle(let since): "idle (since \(since))"
            }
        }
    }

    private var state: State
    private var timeout: TimeSpan
    /// Contacts down per device, for the devices that have any.
    private var contactsDown: [String: Int] = [:]
    /// When the last frame with a contact was seen (the caller's clock), on any device.
    public private(set) var lastTouch: Timestamp?

    /// `timeout` zero: off. Watching starts at `now` (a daemon nobody touches goes idle
    /// `timeout` after it started).
    public init(timeout: TimeSpan, now: Timestamp) {
        self.timeout = timeout
        state = timeout == .zero ? .off : .watching(quietSince: now)
    }

    /// When `advance(to:)` has something to do; nil: nothing timed.
    public var deadline: Timestamp? {
        switch state {
        case .off, .idle, .watching(quietSince: nil): nil
        case .watching(let quietSince?): quietSince + timeout
        }
    }

    /// Whether the last change was to idle.
    public var isIdle: Bool {
        if case .idle = state { true } else { false }
    }

    /// The current state, for logs: `watching (quiet since 5000000 µs)`.
    public var stateDescription: String { state.description }

    /// A frame of `device` at `time` that had contacts (of any phase), `down` of them still
    /// down after it.
    public mutating func touched(device: String, at time: Timestamp, down: Int) -> Change? {
        lastTouch = max(lastTouch ?? time, time)
        contactsDown[device] = down > 0 ? down : nil
        let quiet: Timestamp? = contactsDown.isEmpty ? time : nil
        switch state {
        case .off:
            return nil
        case .watching:
            state = .watching(quietSince: quiet)
            return nil
        case .idle:
            state = .watching(quietSince: quiet)
            return .active(at: time)
        }
    }

    /// `device` went away at `time`: its fingers are no longer down.
    public mutating func deviceRemoved(_ device: String, at time: Timestamp) {
        guard contactsDown.removeValue(forKey: device) != nil else { return }
        switch state {
        case .watching(quietSince: nil) where contactsDown.isEmpty:
            state = .watching(quietSince: time)
        case .off, .watching, .idle:
            break
        }
    }

    /// Time has come to `now`: idle when the timeout has run out (stamped with the moment
    /// it ran out, not with a late timer's).
    public mutating func advance(to now: Timestamp) -> Change? {
        guard let deadline, deadline <= now else { return nil }
        state = .idle(since: deadline)
        return .idle(at: deadline)
    }

    /// A reloaded configuration sets `timeout` at `now`. Turned off while idle, the monitor
    /// says `active` (nobody will be told later, so the screen a blanker turned off comes
    /// back); turned on, it starts watching from `now`.
    public mutating func reconfigure(timeout: TimeSpan, now: Timestamp) -> Change? {
        self.timeout = timeout
        switch (state, timeout == .zero) {
        case (.idle, true):
            state = .off
            return .active(at: now)
        case (.off, true), (.watching, true):
            state = .off
        case (.off, false):
            state = .watching(quietSince: contactsDown.isEmpty ? now : nil)
        case (.watching, false), (.idle, false):
            break
        }
        return nil
    }
}
