import GestureProtocol

/// Leaves out the `changed` events of continuous gestures (drag, pinch, rotate, a long press
/// that moves) for a person reading a subscription: `gesturectl subscribe --compact` prints
/// each gesture as its `began` and its `ended` (or `cancelled`) line, the latter saying how
/// many `changed` events it had; every other message passes unchanged.
///
/// A state machine in swift-nio's style: one mutating function per input, returning what to
/// do. At most `maximumOpenGestures` gestures are counted at a time: the `changed` events
/// of one more (a daemon that never ends its gestures) are shown rather than counted, so
/// the state never grows without bound.
public struct ChangeCollapser: Sendable {
    /// What to do with a message.
    public enum Action: Sendable, Hashable {
        /// Show it.
        case show
        /// Show it (a gesture's last phase), saying that `changes` `changed` events of the
        /// gesture were left out.
        case showWithChanges(Int)
        /// Leave it out (a `changed` event, counted).
        case leaveOut
    }

    /// Gestures counted at once, at most.
    public static let maximumOpenGestures = 256

    /// The `changed` events left out so far, per open gesture id.
    private var changes: [UInt64: Int] = [:]

    public init() {}

    /// A message arrived.
    public mutating func received(_ message: ServerMessage) -> Action {
        switch message {
        case .gesture(let gesture):
            return received(gesture)
        case .goodbye:
            // The connection ends: no gesture of it goes on.
            changes.removeAll()
            return .show
        case .hello, .touch, .device, .activity, .pong, .status, .metrics, .error, .overflow, .unknown:
            return .show
        }
    }

    private mutating func received(_ gesture: GestureMessage) -> Action {
        switch gesture.phase {
        case .began:
            return .show
        case .changed:
            if let count = changes[gesture.id] {
                changes[gesture.id] = count + 1
                return .leaveOut
            }
            guard changes.count < Self.maximumOpenGestures else { return .show }
            changes[gesture.id] = 1
            return .leaveOut
        case .ended, .cancelled:
            guard let count = changes.removeValue(forKey: gesture.id) else { return .show }
            return .showWithChanges(count)
        }
    }
}
