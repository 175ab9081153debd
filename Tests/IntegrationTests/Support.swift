import Foundation
import GestureTestSupport
import SystemPackage
import Testing

/// A test's own failure, with a message.
struct TestFailure: Error, CustomStringConvertible {
    var description: String
}

extension LineReader {
    /// A reader of what a child process writes into `pipe`.
    convenience init(_ pipe: Pipe) {
        self.init(FileDescriptor(rawValue: pipe.fileHandleForReading.fileDescriptor))
    }

    /// The next line's text, or nil at end of stream / when nothing came within the wait.
    func readText() -> String? {
        readLine()?.text
    }
}
