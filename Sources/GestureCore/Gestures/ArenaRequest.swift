/// What an arena member asks for after judging an input by its own rules (its slop, its
/// movement limit, its minimum distance): the action-returning style of
/// `PassThroughFilter.Action`. The member decides; its region's `GestureArena` settles the
/// request (`RegionRecognizers.settle`), and the member is then told that it won or lost.
enum ArenaRequest: Sendable {
    /// Nothing to decide.
    case none
    /// Its conditions are met: it wants to win the touch (begin, or be recognized).
    case claim(StaticString)
    /// It can no longer be this gesture: it leaves the arena.
    case reject(StaticString)
}
