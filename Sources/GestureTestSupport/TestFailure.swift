import Testing

/// A test's own failure, with a message.
struct TestFailure: Error, CustomStringConvertible {
    var description: String
}
