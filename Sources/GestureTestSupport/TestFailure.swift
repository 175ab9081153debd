/// A test's own failure, with a message.
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) {
        self.description = description
    }
}
