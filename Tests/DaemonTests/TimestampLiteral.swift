import GestureProtocol

/// In tests, an integer literal is a moment in microseconds (`frame(6000, …)`). Production
/// targets have no such conversion: there a moment is built from a named unit.
extension Timestamp: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: UInt64) { self.init(microseconds: value) }
}
