/// The gesture arena of one touch sequence (Flutter's model): tap, long press and drag are
/// mutually exclusive. A member that is still in the arena may claim it when its own
/// conditions are met; the first claim wins and every other member is out. A member that
/// fails leaves; the last one left is the only one that can still claim. Press, pinch and
/// rotate are not members (press runs alongside; pinch and rotate run together and push
/// tap and long press out when they begin).
struct GestureArena {
    enum Member: Sendable, CaseIterable {
        case tap, longPress, drag
    }

    private enum State {
        /// Undecided; the members that have left.
        case open(tapOut: Bool, longPressOut: Bool, dragOut: Bool)
        case decided(Member)
    }

    private var state: State = .open(tapOut: false, longPressOut: false, dragOut: false)

    /// Whether `member` could still win.
    func admits(_ member: Member) -> Bool {
        switch state {
        case .open(let tapOut, let longPressOut, let dragOut):
            switch member {
            case .tap: !tapOut
            case .longPress: !longPressOut
            case .drag: !dragOut
            }
        case .decided(let winner):
            winner == member
        }
    }

    /// `member` accepts: it wins if it is still in an undecided arena. Returns whether it won.
    mutating func claim(_ member: Member) -> Bool {
        switch state {
        case .open:
            guard admits(member) else { return false }
            state = .decided(member)
            return true
        case .decided(let winner):
            return winner == member
        }
    }

    /// `member` rejects (fails); it can no longer win.
    mutating func leave(_ member: Member) {
        switch state {
        case .open(var tapOut, var longPressOut, var dragOut):
            switch member {
            case .tap: tapOut = true
            case .longPress: longPressOut = true
            case .drag: dragOut = true
            }
            state = .open(tapOut: tapOut, longPressOut: longPressOut, dragOut: dragOut)
        case .decided:
            break
        }
    }

    /// A new sequence starts with every member in.
    mutating func reset() {
        state = .open(tapOut: false, longPressOut: false, dragOut: false)
    }
}
