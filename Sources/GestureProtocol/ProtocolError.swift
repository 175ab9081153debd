/// Why a line is not a valid message or request: the problem, the field it concerns and the
/// byte of the line where it was found.
public struct ProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Problem: Sendable, Hashable {
        /// Not JSON (RFC 8259, UTF-8), or nested deeper than `WireDecoder.maximumDepth`.
        case malformedJSON
        /// JSON, but not an object.
        case notAnObject
        /// No string `type`.
        case missingType
        /// A request `type` the daemon does not know.
        case unknownRequestType(String)
        /// A field a request does not have (requests refuse them; messages ignore them).
        case unknownField
        /// A field the message needs is absent.
        case missingField
        /// A value of the wrong JSON type or range; `expected` says what it must be.
        case wrongType(expected: String)
        /// A name that is not one of `known` (a gesture, a phase …); `what` is what it names.
        case unknownName(String, what: String, known: [String])
    }

    public var problem: Problem
    /// The field concerned, as a path (`gestures`, `location.x`, `counters.sent`); nil for
    /// the line as a whole.
    public var field: String?
    /// The message or request type being read (`subscribe`, `gesture`), when known.
    public var type: String?
    /// Whether the line was a request (client to daemon) rather than a server message.
    public var isRequest: Bool
    /// Byte offset in the line where the problem was found.
    public var offset: Int

    public init(_ problem: Problem, field: String? = nil, type: String? = nil, isRequest: Bool, offset: Int) {
        self.problem = problem
        self.field = field
        self.type = type
        self.isRequest = isRequest
        self.offset = offset
    }

    /// What the daemon replies (`{"type":"error","message":…}`), e.g.
    /// `unknown gesture "wave" (known: press, tap, long-press, drag, swipe, pinch, rotate)`.
    public var description: String {
        let subject = isRequest ? "request" : "message"
        let name = field.map { "\"\($0)\"" } ?? "the line"
        switch problem {
        case .malformedJSON:
            return "malformed JSON at byte \(offset)"
        case .notAnObject:
            return "a \(subject) must be a JSON object"
        case .missingType:
            return "a \(subject) needs a string \"type\""
        case .unknownRequestType(let type):
            return "unknown request type \"\(type)\""
        case .unknownField:
            return "unknown \(type ?? subject) field \(name)"
        case .missingField:
            return "\(type ?? subject) \(subject) needs \(name)"
        case .wrongType(let expected):
            return "\(name) must be \(expected)"
        case .unknownName(let value, let what, let known):
            return "unknown \(what) \"\(value)\" (known: \(known.joined(separator: ", ")))"
        }
    }
}
