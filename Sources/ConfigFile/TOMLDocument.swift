/// A parsed TOML value with the line it starts on.
struct TOMLNode {
    var value: TOMLValue
    /// 1-based line of the value (for a table: of its header or key).
    var line: Int
}

/// TOML's value types, minus dates and times (no gestured key takes one; the parser
/// rejects them with a clear message).
enum TOMLValue {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    /// A static array `[…]`.
    case array([TOMLNode])
    case table(TOMLTable)
    /// An array of tables built by `[[name]]` headers.
    case tableArray([TOMLTable])

    /// Name of the type for error messages ("expected a number, found a string").
    var typeName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .array: "an array"
        case .table: "a table"
        case .tableArray: "an array of tables"
        }
    }
}

/// A TOML table that remembers key order, key lines, and how it was defined (which
/// decides what later headers and dotted keys may add to it).
final class TOMLTable {
    /// How a table came to exist; TOML forbids defining a table twice.
    enum Origin {
        /// Created as a prefix of a `[a.b.c]` header; a later `[a]` may still define it.
        case implicit
        /// Defined by its own `[header]` or `[[header]]`.
        case header
        /// Created by a dotted key `a.b = 1`.
        case dottedKey
        /// Written inline `{ … }`: closed, nothing may be added later.
        case inline
    }

    var origin: Origin
    /// Line of the header, key, or `{` that created it.
    var line: Int
    /// Header path, for messages: `["gestures", "tap"]`.
    let path: [String]
    private(set) var keys: [String] = []
    private var nodes: [String: TOMLNode] = [:]

    init(origin: Origin, line: Int, path: [String]) {
        self.origin = origin
        self.line = line
        self.path = path
    }

    subscript(key: String) -> TOMLNode? {
        nodes[key]
    }

    /// Appends `element` to the array of tables at `key`, in place (copying the array for
    /// each `[[key]]` header made a file of many of them quadratic); false when `key` holds
    /// no array of tables.
    func appendToTableArray(_ key: String, _ element: TOMLTable) -> Bool {
        guard case .tableArray = nodes[key]?.value, var node = nodes.removeValue(forKey: key),
            case .tableArray(var elements) = node.value
        else { return false }
        node.value = .boolean(false)  // drops the node's reference: `elements` is now unique
        elements.append(element)
        node.value = .tableArray(elements)
        nodes[key] = node
        return true
    }

    /// Adds or replaces `key` (the parser checks redefinition before calling this).
    func set(_ key: String, _ node: TOMLNode) {
        if nodes[key] == nil {
            keys.append(key)
        }
        nodes[key] = node
    }
}
