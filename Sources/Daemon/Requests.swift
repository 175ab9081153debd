import GestureCore

/// Which events one client receives. Nil lists mean "all".
public struct Subscription: Sendable, Hashable {
    public var gestures: Set<GestureKind>? = nil
    /// Region names; `.some(nil)` in the set matches events outside every region.
    public var regions: Set<String?>? = nil
    public var devices: Set<String>? = nil
    /// Raw touch events (off unless asked for).
    public var touches = false

    public init() {}

    func accepts(_ event: GestureEvent, device: String) -> Bool {
        if let gestures, !gestures.contains(event.kind) { return false }
        if let regions, !regions.contains(event.region) { return false }
        return accepts(device: device)
    }

    func accepts(device: String) -> Bool {
        devices?.contains(device) ?? true
    }
}

/// A request line from a client.
enum Request: Equatable {
    case subscribe(Subscription)
    case ping
    case status
}

/// Why a request line was refused; the message goes back to the client.
struct RequestError: Error, Equatable {
    var message: String
}

extension Request {
    /// Parses one line (without its newline).
    init(line: ArraySlice<UInt8>) throws(RequestError) {
        guard let value = JSONValue.parse(line) else {
            throw RequestError(message: "malformed JSON")
        }
        guard case .object(let fields) = value else {
            throw RequestError(message: "a request must be a JSON object")
        }
        guard case .string(let type)? = fields["type"] else {
            throw RequestError(message: "a request needs a string \"type\"")
        }
        switch type {
        case "ping":
            try Request.check(fields, of: type, allowing: [])
            self = .ping
        case "status":
            try Request.check(fields, of: type, allowing: [])
            self = .status
        case "subscribe":
            try Request.check(fields, of: type, allowing: ["gestures", "regions", "devices", "touches"])
            self = .subscribe(try Request.subscription(fields))
        default:
            throw RequestError(message: "unknown request type \"\(type)\"")
        }
    }

    /// Every field but `type` must be one of `known` (docs/protocol.md: an unknown field is
    /// an error, so a misspelt option is not silently ignored). The first unknown one in
    /// sorted order is named, so the message does not depend on hashing.
    private static func check(_ fields: [String: JSONValue], of type: String, allowing known: Set<String>) throws(RequestError) {
        if let unknown = fields.keys.filter({ $0 != "type" && !known.contains($0) }).min() {
            throw RequestError(message: "unknown \(type) field \"\(unknown)\"")
        }
    }

    private static func subscription(_ fields: [String: JSONValue]) throws(RequestError) -> Subscription {
        var subscription = Subscription()
        if let gestures = fields["gestures"], gestures != .null {
            guard let names = strings(gestures) else {
                throw RequestError(message: "\"gestures\" must be an array of strings")
            }
            var kinds = Set<GestureKind>()
            for name in names {
                guard let kind = GestureKind(rawValue: name) else {
                    let known = GestureKind.allCases.map(\.rawValue).joined(separator: ", ")
                    throw RequestError(message: "unknown gesture \"\(name)\" (known: \(known))")
                }
                kinds.insert(kind)
            }
            subscription.gestures = kinds
        }
        if let regions = fields["regions"], regions != .null {
            let problem = RequestError(message: "\"regions\" must be an array of strings (null: outside every region)")
            guard case .array(let list) = regions else { throw problem }
            var names = Set<String?>()
            for item in list {
                switch item {
                case .null: names.insert(nil)
                case .string(let name): names.insert(name)
                case .bool, .number, .array, .object: throw problem
                }
            }
            subscription.regions = names
        }
        if let devices = fields["devices"], devices != .null {
            guard let names = strings(devices) else {
                throw RequestError(message: "\"devices\" must be an array of strings")
            }
            subscription.devices = Set(names)
        }
        if let touches = fields["touches"], touches != .null {
            guard case .bool(let flag) = touches else {
                throw RequestError(message: "\"touches\" must be true or false")
            }
            subscription.touches = flag
        }
        return subscription
    }

    /// The strings of an array of strings, nil for anything else.
    private static func strings(_ value: JSONValue) -> [String]? {
        guard case .array(let items) = value else { return nil }
        var strings: [String] = []
        for item in items {
            guard case .string(let text) = item else { return nil }
            strings.append(text)
        }
        return strings
    }
}
