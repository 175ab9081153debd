import GestureProtocol

/// How many fingers performed a gesture that ends at the last lift (a drag, its swipe),
/// whatever the order of the lifts: real hands lift their fingers 14–28 ms apart, never in
/// one frame. A lift opens a group with the fingers down before it; the lifts that follow
/// within `window` (`tap.fingerWindow`, the window of a multi-finger tap's lifts) of the
/// group's first join it. When the last finger lifts within the window, the group's count is
/// the gesture's; a lift later than that, or a finger joining, starts over (the fingers
/// that lifted earlier left the gesture).
struct FinalLifts {
    /// The first lift of the current group and the fingers down just before it.
    private var firstLift: Timestamp?
    private var fingersBefore = 0
    /// The gesture's finger count as of the last frame.
    private(set) var fingers = 0

    /// Takes one frame of the sequence into account.
    mutating func frame(_ motion: FrameMotion, time: Timestamp, window: TimeSpan) {
        if motion.joined > 0 {
            firstLift = nil
        }
        if motion.lifting > 0 {
            if let first = firstLift, time - first <= window {
                // Part of the group already open.
            } else {
                // A finger that joined in this frame (a tracking id split into two) was not
                // down before it.
                firstLift = time
                fingersBefore = motion.fingers - motion.joined
            }
        }
        fingers = firstLift == nil ? motion.fingers : max(fingersBefore, motion.fingers)
    }
}
