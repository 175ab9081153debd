import Foundation
import GestureTestSupport
import SystemPackage
import Testing

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

extension LineClient {
    /// The next line as a JSON object.
    func readMessage() throws -> [String: Any] {
        guard let line = readLine() else { throw TestFailure(description: "connection closed or timed out") }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw TestFailure(description: "not a JSON object: \(line)")
        }
        return object
    }

    /// Reads messages until one of `type`, returning it.
    func readMessage(ofType type: String) throws -> [String: Any] {
        while true {
            let message = try readMessage()
            if message["type"] as? String == type { return message }
        }
    }

    /// A ping/pong round trip: every request sent before has been handled.
    func sync() throws {
        try send("{\"type\":\"ping\"}\n")
        _ = try readMessage(ofType: "pong")
    }
}
