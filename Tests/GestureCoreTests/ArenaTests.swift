import Testing

@testable import GestureCore

/// The gesture arena's rules, driven directly (docs/gestures.md, "Arbitration"): the first
/// claim of a member still in wins and every other member still in loses; a claim or a
/// rejection after the decision changes nothing but telling a latecomer it lost; a rejected
/// member can no longer win; a new sequence opens a new arena.
@Suite struct ArenaTests {
    private typealias Members = GestureArena.Members
    private typealias Verdict = GestureArena.Verdict

    private func opened(_ members: [GestureArena.Member] = [.tap, .longPress, .drag]) -> GestureArena {
        var arena = GestureArena()
        arena.open(with: Members(members))
        return arena
    }

    @Test func theFirstClaimWinsAndEveryOtherMemberStillInLoses() {
        var arena = opened()
        #expect(arena.claim(.drag) == Verdict(winner: .drag, losers: Members([.tap, .longPress])))
        #expect(arena.admits(.drag))
        #expect(!arena.admits(.tap))
        #expect(!arena.admits(.longPress))
    }

    @Test func aClaimAfterTheDecisionLosesAndTheWinnerStays() {
        var arena = opened()
        _ = arena.claim(.longPress)
        #expect(arena.claim(.tap) == Verdict(winner: nil, losers: Members([.tap])), "a latecomer is told it lost")
        #expect(arena.claim(.longPress) == .nothing, "the winner claiming again changes nothing")
        #expect(arena.reject(.longPress) == .nothing, "a decided arena keeps its winner")
        #expect(arena.admits(.longPress))
    }

    @Test func aRejectedMemberLeavesWithoutDecidingForTheOthers() {
        var arena = opened()
        #expect(arena.reject(.tap) == Verdict(winner: nil, losers: Members([.tap])))
        #expect(arena.reject(.tap) == .nothing, "told once")
        #expect(!arena.admits(.tap))
        #expect(arena.admits(.longPress) && arena.admits(.drag), "still undecided")
        #expect(arena.claim(.tap) == Verdict(winner: nil, losers: Members([.tap])), "out: it cannot win any more")
        #expect(arena.claim(.longPress) == Verdict(winner: .longPress, losers: Members([.drag])), "the tap is not told twice")
    }

    @Test func theLastMemberInStillHasToClaim() {
        var arena = opened()
        _ = arena.reject(.tap)
        _ = arena.reject(.longPress)
        #expect(arena.admits(.drag))
        #expect(arena.claim(.drag) == Verdict(winner: .drag, losers: .none))
    }

    @Test func onlyTheMembersEnteredTakePart() {
        var arena = opened([.tap])
        #expect(!arena.admits(.drag))
        #expect(arena.claim(.drag) == Verdict(winner: nil, losers: Members([.drag])))
        #expect(arena.reject(.longPress) == .nothing)
        #expect(arena.claim(.tap) == Verdict(winner: .tap, losers: .none))
    }

    @Test func aNewSequenceOpensANewArena() {
        var arena = opened()
        _ = arena.claim(.tap)
        arena.open(with: Members([.drag]))
        #expect(arena.admits(.drag))
        #expect(!arena.admits(.tap), "the last sequence's winner is not carried over")
        #expect(arena.claim(.drag) == Verdict(winner: .drag, losers: .none))
    }

    @Test func anEmptyArenaAdmitsNobody() {
        var arena = GestureArena()
        for member in GestureArena.everyMember {
            #expect(!arena.admits(member))
            #expect(arena.claim(member) == Verdict(winner: nil, losers: Members([member])))
        }
    }

    @Test func memberSetsAreBitsOfTheirOwn() {
        var members = Members([.tap, .drag])
        #expect(members.contains(.tap) && members.contains(.drag) && !members.contains(.longPress))
        members.remove(.tap)
        members.remove(.longPress)
        #expect(members == Members([.drag]))
        members.insert(.drag)
        #expect(members == Members([.drag]), "inserting twice keeps one")
        members.remove(.drag)
        #expect(members.isEmpty && members == .none)
    }
}
