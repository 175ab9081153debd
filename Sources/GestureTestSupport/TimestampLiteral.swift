import GestureProtocol

/// In tests, an integer literal is a moment in microseconds (`frame(6000, …)`), for every
/// target that links the test support (one retroactive conformance, not one per test
/// target). Production targets never link this module, so there a moment is always built
/// from a named unit.
extension Timestamp: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: UInt64) { self.init(microseconds: value) }
}
