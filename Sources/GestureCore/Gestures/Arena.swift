/// The gesture arena of one region's touch sequence (Flutter's `GestureArenaManager`): tap,
/// long press and drag are mutually exclusive. The members that take part are entered when
/// the sequence begins; a member that is still in may claim the arena when its own conditions
/// are met: the first claim wins and every other member is out. A member that fails leaves.
///
/// Every decision comes back as a `Verdict` naming the winner and the losers, which the
/// region hands to its members (`RegionRecognizers.settle`): members are told that they won
/// or lost, as Flutter's `GestureArenaMember.acceptGesture` / `rejectGesture`, instead of each
/// caller pairing a recognizer's `fail` with a `leave`.
///
/// Press, pinch and rotate are not members (press runs alongside; pinch and rotate run
/// together and push tap and long press out when they begin). Across regions the engine
/// relays claims (`GestureEngine`): a member of another region that wins the same touch
/// makes this region's competing members lose through `reject`.
struct GestureArena {
    enum Member: Sendable, CaseIterable {
        case tap, longPress, drag
    }

    /// Every member, stored once (`allCases` may build an array on each call).
    static let everyMember: [Member] = Member.allCases

    /// A set of members as bits.
    struct Members: Sendable, Hashable {
        private(set) var bits: UInt8 = 0

        static let none = Members()

        init(_ members: [Member] = []) {
            for member in members { insert(member) }
        }

        func contains(_ member: Member) -> Bool { bits & Self.bit(member) != 0 }
        mutating func insert(_ member: Member) { bits |= Self.bit(member) }
        mutating func remove(_ member: Member) { bits &= ~Self.bit(member) }
        var isEmpty: Bool { bits == 0 }

        private static func bit(_ member: Member) -> UInt8 {
            switch member {
            case .tap: 1 << 0
            case .longPress: 1 << 1
            case .drag: 1 << 2
            }
        }
    }

    /// What one claim or rejection decided: the member that won (if any) and every member
    /// that lost by it. Both are to be told.
    struct Verdict: Sendable, Hashable {
        var winner: Member?
        var losers: Members

        static let nothing = Verdict(winner: nil, losers: .none)
    }

    private enum State {
        /// Undecided; the members still in.
        case open(Members)
        case decided(Member)
    }

    private var state: State = .open(.none)

    /// A new sequence: `members` are in, nobody has won.
    mutating func open(with members: Members) {
        state = .open(members)
    }

    /// Whether `member` could still win.
    func admits(_ member: Member) -> Bool {
        switch state {
        case .open(let members): members.contains(member)
        case .decided(let winner): winner == member
        }
    }

    /// `member` accepts. If it is still in an undecided arena it wins and every other member
    /// still in loses; if it is out, it loses (it is told so again, which is harmless); if it
    /// already won, nothing changes.
    mutating func claim(_ member: Member) -> Verdict {
        switch state {
        case .open(var members):
            guard members.contains(member) else { return Verdict(winner: nil, losers: Members([member])) }
            members.remove(member)
            state = .decided(member)
            return Verdict(winner: member, losers: members)
        case .decided(let winner):
            return winner == member ? .nothing : Verdict(winner: nil, losers: Members([member]))
        }
    }

    /// `member` rejects (fails, or another region's member won its touch): it can no longer
    /// win. The verdict names it as the loser when it was still in.
    mutating func reject(_ member: Member) -> Verdict {
        switch state {
        case .open(var members):
            guard members.contains(member) else { return .nothing }
            members.remove(member)
            state = .open(members)
            return Verdict(winner: nil, losers: Members([member]))
        case .decided:
            return .nothing
        }
    }
}
