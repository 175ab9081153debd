import Foundation
import GestureProtocol
import Testing

/// Every example line of docs/protocol.md decodes, and encodes back to the same bytes: the
/// document is read here, so it cannot drift from the code.
@Suite struct DocumentedExamplesTests {
    /// One example: a line of a ```json block, or an inline `{"type":…}` code span.
    struct Example: CustomTestStringConvertible, Sendable {
        let line: String
        /// 1-based, in docs/protocol.md.
        let lineNumber: Int
        /// Written under "## Requests": a client's line, not the daemon's.
        let isRequest: Bool

        var testDescription: String { "protocol.md:\(lineNumber) \(line.prefix(60))" }
    }

    static let examples: [Example] = {
        let document = (try? String(contentsOfFile: protocolDocumentPath, encoding: .utf8)) ?? ""
        var examples: [Example] = []
        var inJSONBlock = false
        var isRequest = false
        for (index, line) in document.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("## ") { isRequest = line == "## Requests" }
            if line.hasPrefix("```") {
                inJSONBlock = line == "```json"
                continue
            }
            if inJSONBlock {
                if !line.isEmpty { examples.append(Example(line: String(line), lineNumber: index + 1, isRequest: isRequest)) }
                continue
            }
            // Inline code spans that are whole lines: `{"type":"ping"}`, not the sketches with
            // placeholders (`{"type":"subscribe", …}`, `{"type":"overflow","dropped":N}`).
            for span in line.split(separator: "`", omittingEmptySubsequences: false).enumerated() where span.offset % 2 == 1 {
                let code = span.element
                if code.hasPrefix("{\"type\":"), code.hasSuffix("}"), !code.contains("…"), !code.contains("\":N") {
                    examples.append(Example(line: String(code), lineNumber: index + 1, isRequest: isRequest))
                }
            }
        }
        return examples
    }()

    static var protocolDocumentPath: String {
        let root = String(#filePath).split(separator: "/").dropLast(3).joined(separator: "/")
        return "/" + root + "/docs/protocol.md"
    }

    @Test func theDocumentHasExamplesOfEveryMessageAndRequest() throws {
        var messages: Set<String> = []
        var gestures: Set<GestureKind> = []
        var requests: Set<String> = []
        for example in Self.examples {
            if example.isRequest {
                switch try WireDecoder.request(Array(example.line.utf8)) {
                case .subscribe: requests.insert("subscribe")
                case .ping: requests.insert("ping")
                case .status: requests.insert("status")
                case .metrics: requests.insert("metrics")
                }
            } else {
                switch try WireDecoder.message(Array(example.line.utf8)) {
                case .hello: messages.insert("hello")
                case .gesture(let gesture):
                    messages.insert("gesture")
                    gestures.insert(gesture.gesture)
                case .touch: messages.insert("touch")
                case .device: messages.insert("device")
                case .activity: messages.insert("activity")
                case .pong: messages.insert("pong")
                case .status: messages.insert("status")
                case .metrics: messages.insert("metrics")
                case .error: messages.insert("error")
                case .overflow: messages.insert("overflow")
                case .goodbye: messages.insert("goodbye")
                case .unknown(let type): Issue.record("protocol.md:\(example.lineNumber): undocumented type \(type)")
                }
            }
        }
        #expect(
            messages == ["hello", "gesture", "touch", "device", "activity", "pong", "status", "metrics", "error", "overflow", "goodbye"])
        #expect(requests == ["subscribe", "ping", "status", "metrics"])
        // The clients' tests (clients/python, web/test_live_view.py) decode these examples:
        // one of every kind the encoder writes.
        #expect(gestures == Set(GestureKind.allCases))
    }

    @Test(arguments: examples)
    func exampleDecodesAndEncodesBackByteForByte(_ example: Example) throws {
        let line = Array(example.line.utf8)
        let encoded: [UInt8]
        if example.isRequest {
            encoded = WireEncoder.encode(try WireDecoder.request(line))
        } else {
            encoded = WireEncoder.encode(try WireDecoder.message(line))
        }
        #expect(String(decoding: encoded, as: UTF8.self) == example.line + "\n")
    }
}
