import GestureProtocol

/// A set of gesture kinds as bits (a `Set` lookup hashes; this is one AND): what a region
/// enables, reports, or lists in `simultaneous` / `high-priority`.
struct GestureKindSet: Sendable, Hashable {
    private var bits: UInt8 = 0

    static let none = GestureKindSet()

    init() {}

    init(_ kinds: Set<GestureKind>) {
        for kind in kinds { insert(kind) }
    }

    func contains(_ kind: GestureKind) -> Bool { bits & Self.bit(kind) != 0 }
    mutating func insert(_ kind: GestureKind) { bits |= Self.bit(kind) }
    var isEmpty: Bool { bits == 0 }
    func intersection(_ other: GestureKindSet) -> GestureKindSet {
        var intersection = self
        intersection.bits &= other.bits
        return intersection
    }

    private static func bit(_ kind: GestureKind) -> UInt8 {
        switch kind {
        case .press: 1 << 0
        case .tap: 1 << 1
        case .longPress: 1 << 2
        case .drag: 1 << 3
        case .swipe: 1 << 4
        case .pinch: 1 << 5
        case .rotate: 1 << 6
        }
    }
}
