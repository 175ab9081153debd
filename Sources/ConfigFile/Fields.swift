/// One key of a configuration table: its name and how it decodes into the model.
struct Field<Root> {
    let key: String
    let apply: (inout Root, TOMLNode, Place) throws(ConfigError) -> Void

    /// This field applied to a part of a larger model.
    func lifted<Outer>(_ part: WritableKeyPath<Outer, Root>) -> Field<Outer> {
        let apply = self.apply
        return Field<Outer>(key: key) { (outer: inout Outer, node: TOMLNode, place: Place) throws(ConfigError) in
            try apply(&outer[keyPath: part], node, place)
        }
    }
}

/// Where a value sits, for error messages: the file, and the table's display name.
struct Place {
    let path: String
    /// `[gestures.tap]`, `[[region]] 'button'`, `the top level`.
    let table: String

    /// An error about `key`'s value on `line`.
    func invalid(_ key: String, _ problem: String, line: Int) -> ConfigError {
        ConfigError(path: path, line: line, message: "'\(key)' in \(table) \(problem)")
    }

    func error(_ message: String, line: Int) -> ConfigError {
        ConfigError(path: path, line: line, message: message)
    }

    func inTable(_ table: String) -> Place {
        Place(path: path, table: table)
    }
}

/// Bounds a number must respect, with the wording of the error when it does not.
struct Bounds {
    let contains: (Double) -> Bool
    let description: String

    static var nonNegative: Bounds { Bounds(contains: { $0 >= 0 }, description: "must not be negative") }
    static var positive: Bounds { Bounds(contains: { $0 > 0 }, description: "must be greater than 0") }
    static var openUnitInterval: Bounds { Bounds(contains: { $0 > 0 && $0 < 1 }, description: "must be between 0 and 1 (exclusive)") }

    static func range(_ range: ClosedRange<Double>) -> Bounds {
        Bounds(contains: { range.contains($0) }, description: "must be between \(format(range.lowerBound)) and \(format(range.upperBound))")
    }

    static func atMost(_ limit: Double, _ bounds: Bounds, unit: String) -> Bounds {
        Bounds(
            contains: { bounds.contains($0) && $0 <= limit },
            description: "\(bounds.description) and at most \(format(limit)) \(unit)"
        )
    }
}

/// `3` for whole numbers, `0.998` otherwise.
func format(_ value: Double) -> String {
    if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
        return String(Int64(value))
    }
    return "\(value)"
}

extension Field {
    /// A number (integer or float), finite and within `bounds`.
    static func number(_ key: String, _ target: WritableKeyPath<Root, Double>, _ bounds: Bounds) -> Field {
        Field(key: key) { (root: inout Root, node: TOMLNode, place: Place) throws(ConfigError) in
            root[keyPath: target] = try Values.number(node, key: key, bounds: bounds, place: place)
        }
    }

    static func integer(_ key: String, _ target: WritableKeyPath<Root, Int>, _ range: ClosedRange<Int>) -> Field {
        Field(key: key) { (root: inout Root, node: TOMLNode, place: Place) throws(ConfigError) in
            root[keyPath: target] = try Values.integer(node, key: key, range: range, place: place)
        }
    }

    static func boolean(_ key: String, _ target: WritableKeyPath<Root, Bool>) -> Field {
        Field(key: key) { (root: inout Root, node: TOMLNode, place: Place) throws(ConfigError) in
            root[keyPath: target] = try Values.boolean(node, key: key, place: place)
        }
    }

    /// A string that must be one of `choices`.
    static func choice<Value>(_ key: String, _ target: WritableKeyPath<Root, Value>, _ choices: [(String, Value)]) -> Field {
        Field(key: key) { (root: inout Root, node: TOMLNode, place: Place) throws(ConfigError) in
            root[keyPath: target] = try Values.choice(node, key: key, choices, place: place)
        }
    }

    /// A sub-table decoded with its own fields.
    static func table<Part>(_ key: String, _ target: WritableKeyPath<Root, Part>, _ fields: [Field<Part>], name: String) -> Field {
        Field(key: key) { (root: inout Root, node: TOMLNode, place: Place) throws(ConfigError) in
            guard case .table(let table) = node.value else {
                throw place.invalid(key, "must be a table, not \(node.value.typeName)", line: node.line)
            }
            try decode(table, with: fields, into: &root[keyPath: target], place: place.inTable(name))
        }
    }
}

/// Applies every key of `table` through `fields`, in file order; a key that is neither a
/// field nor in `handledElsewhere` is an error with a "did you mean" suggestion.
func decode<Root>(_ table: TOMLTable, with fields: [Field<Root>], into root: inout Root, place: Place, handledElsewhere: [String] = [])
    throws(ConfigError)
{
    for key in table.keys {
        guard let node = table[key] else {
            continue
        }
        if handledElsewhere.contains(key) {
            continue
        }
        guard let field = fields.first(where: { $0.key == key }) else {
            let known = fields.map(\.key) + handledElsewhere
            throw place.error("unknown key '\(key)' in \(place.table)\(suggestion(for: key, among: known))", line: node.line)
        }
        try field.apply(&root, node, place)
    }
}

/// Conversions of single TOML values with range checks.
enum Values {
    static func number(_ node: TOMLNode, key: String, bounds: Bounds, place: Place) throws(ConfigError) -> Double {
        let value: Double
        switch node.value {
        case .integer(let integer): value = Double(integer)
        case .float(let float): value = float
        case .string, .boolean, .array, .table, .tableArray:
            throw place.invalid(key, "must be a number, not \(node.value.typeName)", line: node.line)
        }
        guard value.isFinite else {
            throw place.invalid(key, "must be a finite number", line: node.line)
        }
        guard bounds.contains(value) else {
            throw place.invalid(key, "\(bounds.description) (got \(format(value)))", line: node.line)
        }
        return value
    }

    static func integer(_ node: TOMLNode, key: String, range: ClosedRange<Int>, place: Place) throws(ConfigError) -> Int {
        guard case .integer(let value) = node.value else {
            throw place.invalid(key, "must be an integer, not \(node.value.typeName)", line: node.line)
        }
        guard value >= Int64(range.lowerBound), value <= Int64(range.upperBound) else {
            throw place.invalid(key, "must be between \(range.lowerBound) and \(range.upperBound) (got \(value))", line: node.line)
        }
        return Int(value)
    }

    static func boolean(_ node: TOMLNode, key: String, place: Place) throws(ConfigError) -> Bool {
        guard case .boolean(let value) = node.value else {
            throw place.invalid(key, "must be true or false, not \(node.value.typeName)", line: node.line)
        }
        return value
    }

    static func string(_ node: TOMLNode, key: String, place: Place) throws(ConfigError) -> String {
        guard case .string(let value) = node.value else {
            throw place.invalid(key, "must be a string, not \(node.value.typeName)", line: node.line)
        }
        return value
    }

    /// A string that must be one of `choices`' names, as its value.
    static func choice<Value>(_ node: TOMLNode, key: String, _ choices: [(String, Value)], place: Place) throws(ConfigError) -> Value {
        let names = choices.map(\.0)
        let text = try string(node, key: key, place: place)
        guard let value = choices.first(where: { $0.0 == text })?.1 else {
            throw place.invalid(
                key, "must be one of \(quotedList(names)), not '\(text)'\(suggestion(for: text, among: names))", line: node.line)
        }
        return value
    }

    static func array(_ node: TOMLNode, key: String, place: Place) throws(ConfigError) -> [TOMLNode] {
        guard case .array(let elements) = node.value else {
            throw place.invalid(key, "must be an array, not \(node.value.typeName)", line: node.line)
        }
        return elements
    }

    /// An array of exactly `count` numbers (any count when nil), each finite.
    static func numbers(_ node: TOMLNode, key: String, count: Int?, shape: String, place: Place) throws(ConfigError) -> [Double] {
        let elements = try array(node, key: key, place: place)
        if let count, elements.count != count {
            throw place.invalid(key, "must be \(count) numbers \(shape), got \(elements.count)", line: node.line)
        }
        var numbers: [Double] = []
        for element in elements {
            numbers.append(try number(element, key: key, bounds: Bounds(contains: { _ in true }, description: ""), place: place))
        }
        return numbers
    }

    /// `[[key]]` tables, or a static array of inline tables.
    static func tables(_ node: TOMLNode, key: String, place: Place) throws(ConfigError) -> [TOMLTable] {
        switch node.value {
        case .tableArray(let tables):
            return tables
        case .array(let elements):
            var tables: [TOMLTable] = []
            for element in elements {
                guard case .table(let table) = element.value else {
                    throw place.error(
                        "'\(key)' must be an array of tables ([[\(key)]]), but holds \(element.value.typeName)", line: element.line)
                }
                tables.append(table)
            }
            return tables
        case .string, .integer, .float, .boolean, .table:
            throw place.error("'\(key)' must be an array of tables ([[\(key)]]), not \(node.value.typeName)", line: node.line)
        }
    }
}

/// `'a', 'b', 'c'`.
func quotedList(_ names: [String]) -> String {
    names.map { "'\($0)'" }.joined(separator: ", ")
}

/// ` (did you mean 'slop'?)` for the closest known name within a small edit distance, or
/// the only known name that starts with `word`.
func suggestion(for word: String, among names: [String]) -> String {
    // No known name is this long: spare the edit distance on a huge key.
    guard word.utf8.count <= 64 else { return "" }
    let scored = names.map { (name: $0, distance: editDistance(word, $0)) }
    if let best = scored.min(by: { $0.distance < $1.distance }),
        best.distance <= max(2, word.count / 3), best.distance < word.count
    {
        return " (did you mean '\(best.name)'?)"
    }
    // An abbreviation: `edge` for `edge-margin`.
    let extensions = names.filter { word.count >= 3 && $0.hasPrefix(word) }
    if extensions.count == 1 {
        return " (did you mean '\(extensions[0])'?)"
    }
    return ""
}

/// Levenshtein distance, counting a swap of neighbours as one edit (Damerau, restricted).
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty || b.isEmpty {
        return max(a.count, b.count)
    }
    var previousPrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], previousPrevious[j - 2] + 1)
            }
        }
        (previousPrevious, previous, current) = (previous, current, previousPrevious)
    }
    return previous[b.count]
}
