import Foundation
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
    /// Parses one line (without its newline). Requests are small and rare, so Foundation's
    /// JSON parser is fine here.
    init(line: ArraySlice<UInt8>) throws(RequestError) {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(line), options: [])
        } catch {
            throw RequestError(message: "malformed JSON")
        }
        guard let fields = object as? [String: Any] else {
            throw RequestError(message: "a request must be a JSON object")
        }
        guard let type = fields["type"] as? String else {
            throw RequestError(message: "a request needs a string \"type\"")
        }
        switch type {
        case "ping":
            self = .ping
        case "status":
            self = .status
        case "subscribe":
            self = .subscribe(try Request.subscription(fields))
        default:
            throw RequestError(message: "unknown request type \"\(type)\"")
        }
    }

    private static func subscription(_ fields: [String: Any]) throws(RequestError) -> Subscription {
        var subscription = Subscription()
        for key in fields.keys where !["type", "gestures", "regions", "devices", "touches"].contains(key) {
            throw RequestError(message: "unknown subscribe field \"\(key)\"")
        }
        if let gestures = fields["gestures"], !(gestures is NSNull) {
            guard let names = gestures as? [String] else {
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
        if let regions = fields["regions"], !(regions is NSNull) {
            guard let list = regions as? [Any] else {
                throw RequestError(message: "\"regions\" must be an array of strings (null: outside every region)")
            }
            var names = Set<String?>()
            for item in list {
                if item is NSNull {
                    names.insert(nil)
                } else if let name = item as? String {
                    names.insert(name)
                } else {
                    throw RequestError(message: "\"regions\" must be an array of strings (null: outside every region)")
                }
            }
            subscription.regions = names
        }
        if let devices = fields["devices"], !(devices is NSNull) {
            guard let names = devices as? [String] else {
                throw RequestError(message: "\"devices\" must be an array of strings")
            }
            subscription.devices = Set(names)
        }
        if let touches = fields["touches"], !(touches is NSNull) {
            guard let flag = touches as? Bool, isJSONBoolean(touches) else {
                throw RequestError(message: "\"touches\" must be true or false")
            }
            subscription.touches = flag
        }
        return subscription
    }
}

/// On Linux, JSON booleans come back as NSNumber; reject numbers that are not booleans.
private func isJSONBoolean(_ value: Any) -> Bool {
    guard let number = value as? NSNumber else { return false }
    return String(cString: number.objCType) == "c" || type(of: number) == type(of: NSNumber(value: true))
}
