import PropertyBased
import TOMLKit
import Testing

@testable import ConfigFile

// The TOML reader (ConfigFile's own, ~700 lines) against an independent implementation:
// TOMLKit 0.6.0, which wraps toml++ (a TOML 1.0 parser in C++). Random documents are built
// from a random value tree, written out in randomly chosen TOML syntax (headers, implicit
// super-tables, dotted keys, inline tables, arrays of tables, every string form and escape,
// every integer base, underscores, special floats, comments), and must read back as that
// tree in both readers. Documents TOML 1.0 forbids must be refused by both.

/// A TOML value as both readers must see it (an array of tables is an array of tables).
indirect enum PlainValue: Equatable, CustomStringConvertible {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    case array([PlainValue])
    case table([String: PlainValue])
    /// What one reader returned that the other cannot have: a date, a time.
    case unsupported(String)

    static func == (left: PlainValue, right: PlainValue) -> Bool {
        switch (left, right) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        // Bit for bit (0.0 is not -0.0), and any NaN equals any NaN (TOML has one `nan`).
        case (.float(let a), .float(let b)): a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
        case (.boolean(let a), .boolean(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.table(let a), .table(let b)): a == b
        case (.unsupported(let a), .unsupported(let b)): a == b
        case (.string, _), (.integer, _), (.float, _), (.boolean, _), (.array, _), (.table, _), (.unsupported, _): false
        }
    }

    var description: String {
        switch self {
        case .string(let value): "\"\(value.unicodeScalars.map { $0.escaped(asASCII: true) }.joined())\""
        case .integer(let value): "\(value)"
        case .float(let value): "\(value)"
        case .boolean(let value): "\(value)"
        case .array(let values): "[\(values.map(\.description).joined(separator: ", "))]"
        case .table(let entries): "{\(entries.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))}"
        case .unsupported(let what): "<\(what)>"
        }
    }
}

// MARK: The two readers, as plain values

/// gestured's reader: the document's root table, or the error it refused it with.
func readWithConfigFile(_ text: String) -> Result<PlainValue, ConfigError> {
    do throws(ConfigError) {
        return .success(plain(try TOMLParser.parse(text, path: "generated.toml")))
    } catch {
        return .failure(error)
    }
}

private func plain(_ table: ConfigFile.TOMLTable) -> PlainValue {
    var entries: [String: PlainValue] = [:]
    for key in table.keys {
        if let node = table[key] { entries[key] = plain(node.value) }
    }
    return .table(entries)
}

private func plain(_ value: ConfigFile.TOMLValue) -> PlainValue {
    switch value {
    case .string(let string): .string(string)
    case .integer(let integer): .integer(integer)
    case .float(let float): .float(float)
    case .boolean(let boolean): .boolean(boolean)
    case .array(let nodes): .array(nodes.map { plain($0.value) })
    case .table(let table): plain(table)
    case .tableArray(let tables): .array(tables.map { plain($0) })
    }
}

/// TOMLKit's reader: the root table, or its parse error's text.
func readWithTOMLKit(_ text: String) -> Result<PlainValue, TOMLParseError> {
    do {
        return .success(plain(try TOMLKit.TOMLTable(string: text)))
    } catch let error as TOMLParseError {
        return .failure(error)
    } catch {
        fatalError("TOMLKit threw \(error), not a TOMLParseError")
    }
}

private func plain(_ table: TOMLKit.TOMLTable) -> PlainValue {
    var entries: [String: PlainValue] = [:]
    for key in table.keys {
        if let value = table[key] { entries[key] = plain(value) }
    }
    return .table(entries)
}

private func plain(_ value: any TOMLValueConvertible) -> PlainValue {
    switch value.type {
    case .table: value.table.map { plain($0) } ?? .unsupported("unreadable table")
    case .array: value.array.map { .array($0.map { plain($0) }) } ?? .unsupported("unreadable array")
    case .string: value.string.map { .string($0) } ?? .unsupported("unreadable string")
    case .int: value.int.map { .integer(Int64($0)) } ?? .unsupported("unreadable integer")
    case .double: value.double.map { .float($0) } ?? .unsupported("unreadable float")
    case .bool: value.bool.map { .boolean($0) } ?? .unsupported("unreadable boolean")
    case .date, .time, .dateTime: .unsupported(value.type.description)
    }
}

// MARK: Random documents

/// Draws choices from a property-test script (a list of random integers, which the
/// property-test library shrinks on a failure), cycling through it with a counter so that
/// any script, however short, yields a whole document.
struct Choices {
    private let script: [Int]
    private var index = 0

    init(_ script: [Int]) {
        self.script = script.isEmpty ? [0] : script
    }

    /// A number in `0..<count`.
    mutating func below(_ count: Int) -> Int {
        let raw = script[index % script.count] &+ (index / script.count) &* 7919
        index += 1
        return Int(UInt(bitPattern: raw) % UInt(count))
    }

    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    mutating func pick<T>(_ options: [T]) -> T { options[below(options.count)] }
}

/// An ordered table of the value tree the document is written from.
struct TreeTable {
    var entries: [(key: String, value: TreeValue)] = []

    var plainValue: PlainValue { .table(Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.value.plainValue) })) }
}

indirect enum TreeValue {
    case scalar(PlainValue)
    case array([TreeValue])
    case table(TreeTable)

    var plainValue: PlainValue {
        switch self {
        case .scalar(let value): value
        case .array(let values): .array(values.map(\.plainValue))
        case .table(let table): table.plainValue
        }
    }

    /// A non-empty array of tables only: what `[[header]]` sections can write.
    var tablesOfArray: [TreeTable]? {
        guard case .array(let values) = self, !values.isEmpty else { return nil }
        var tables: [TreeTable] = []
        for value in values {
            guard case .table(let table) = value else { return nil }
            tables.append(table)
        }
        return tables
    }
}

/// Builds a random value tree (`depth` bounds the nesting).
struct TreeBuilder {
    var choices: Choices

    /// Characters a string is made of: every character TOML must escape in a basic string,
    /// the quotes and the backslash, a comment sign, and non-ASCII up to four UTF-8 bytes.
    static let stringCharacters: [Unicode.Scalar] = [
        "a", "Z", "7", " ", "#", "=", "[", "]", "{", "}", ",", ".", "'", "\"", "\\", "\t", "\n", "\r",
        "\u{08}", "\u{0C}", "\u{01}", "\u{1F}", "\u{7F}", "é", "ß", "€", "\u{FEFF}", "😀", "\u{10FFFF}",
    ]
    static let keyCharacters = Array("abcXYZ019_-")

    mutating func table(depth: Int) -> TreeTable {
        var table = TreeTable()
        var used: Set<String> = []
        for _ in 0..<choices.below(depth > 2 ? 6 : 3) {
            let name = key()
            guard used.insert(name).inserted else { continue }
            table.entries.append((name, value(depth: depth)))
        }
        return table
    }

    mutating func key() -> String {
        switch choices.below(10) {
        case 0: return string(maximumLength: 6)  // anything, written quoted
        case 1: return ""  // the empty quoted key is allowed
        default: return String((0..<(1 + choices.below(5))).map { _ in choices.pick(Self.keyCharacters) })
        }
    }

    mutating func value(depth: Int) -> TreeValue {
        let kind = choices.below(depth > 0 ? 10 : 6)
        switch kind {
        case 0, 1: return .scalar(.string(string(maximumLength: 12)))
        case 2: return .scalar(.integer(integer()))
        case 3: return .scalar(.float(float()))
        case 4: return .scalar(.boolean(choices.chance(50)))
        case 5: return .scalar(.string(""))
        case 6: return .table(table(depth: depth - 1))
        case 7:  // an array of tables
            return .array((0..<(1 + choices.below(3))).map { _ in .table(table(depth: depth - 1)) })
        default:  // an array of anything, types mixed (TOML 1.0 allows it)
            return .array((0..<choices.below(4)).map { _ in value(depth: depth - 1) })
        }
    }

    mutating func string(maximumLength: Int) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<choices.below(maximumLength + 1) { scalars.append(choices.pick(Self.stringCharacters)) }
        return String(scalars)
    }

    mutating func integer() -> Int64 {
        switch choices.below(6) {
        case 0: return choices.pick([0, 1, -1, .max, .min, 0x7F, 255, 1_000_000])
        case 1: return Int64(choices.below(256))
        default:
            let magnitude = Int64(choices.below(Int.max)) >> choices.below(63)
            return choices.chance(30) ? -magnitude : magnitude
        }
    }

    mutating func float() -> Double {
        switch choices.below(5) {
        case 0: return choices.pick([0.0, -0.0, .infinity, -.infinity, .nan, 1.5, -2.25, 1e300, .leastNonzeroMagnitude, .ulpOfOne])
        case 1: return Double(choices.below(1_000_000)) / 1000
        default:
            let value = Double(bitPattern: UInt64(UInt(bitPattern: choices.below(Int.max)) << 1 | UInt(choices.below(2))))
            return value.isFinite ? value : 0.5
        }
    }
}

/// Writes a value tree as a TOML document, choosing among the forms that mean the same.
struct DocumentWriter {
    var choices: Choices
    private(set) var text = ""
    /// The `[header]` lines written, for the redefinition test.
    private(set) var headers: [String] = []
    /// The root's first `key = value` line, for the duplicate-key test.
    private(set) var firstRootLine: String?

    init(choices: Choices) {
        self.choices = choices
    }

    mutating func write(_ root: TreeTable) {
        if choices.chance(20) { text += "# generated\n\n" }
        section(root, path: [], header: nil, inArrayOfTables: false)
    }

    /// A table's own keys, then its sub-tables and arrays of tables as sections.
    /// `inArrayOfTables`: the header names a table in the latest element of an array of
    /// tables (the next element may define the same header again).
    private mutating func section(_ table: TreeTable, path: [String], header: String?, inArrayOfTables: Bool) {
        var later: [(key: String, value: TreeValue)] = []
        var own: [String] = []
        for (key, value) in table.entries {
            switch value {
            case .table(let sub) where choices.chance(40):
                later.append((key, .table(sub)))
            case .array where value.tablesOfArray != nil && choices.chance(60):
                later.append((key, value))
            default:
                own += pairs(key: [key], value)
            }
        }
        // A table (not an array element) with no keys of its own and at least one section
        // below may be left implicit: `[a.b]` defines `a` too.
        if let header {
            let isTable = !header.hasPrefix("[[")
            if !(isTable && own.isEmpty && !later.isEmpty && choices.chance(50)) {
                text += "\n" + header + comment() + "\n"
                if isTable && !inArrayOfTables { headers.append(header) }
            }
        }
        if path.isEmpty { firstRootLine = own.first }
        for line in own { text += indentation() + line + comment() + "\n" }
        for (key, value) in later {
            let subPath = path + [key]
            if let tables = value.tablesOfArray {
                for element in tables {
                    section(element, path: subPath, header: "[[\(dotted(subPath))]]", inArrayOfTables: true)
                }
            } else if case .table(let sub) = value {
                section(sub, path: subPath, header: "[\(dotted(subPath))]", inArrayOfTables: inArrayOfTables)
            }
        }
    }

    /// `key = value` lines for one entry: a table may be spread over dotted keys.
    private mutating func pairs(key: [String], _ value: TreeValue) -> [String] {
        if case .table(let table) = value, !table.entries.isEmpty, choices.chance(40) {
            return table.entries.flatMap { pairs(key: key + [$0.key], $0.value) }
        }
        return ["\(dotted(key))\(spaces())=\(spaces())\(inline(value))"]
    }

    private mutating func inline(_ value: TreeValue) -> String {
        switch value {
        case .scalar(let scalar): return self.scalar(scalar)
        case .array(let values):
            if values.isEmpty { return choices.pick(["[]", "[ ]", "[\n]", "[ # empty\n]"]) }
            let multiline = choices.chance(30)
            let separator = multiline ? ",\n  " : choices.pick([",", ", ", " , "])
            let items = values.map { inline($0) }.joined(separator: separator)
            let trailing = choices.chance(30) ? "," : ""
            return multiline ? "[\n  \(items)\(trailing) # last\n]" : "[\(items)\(trailing)]"
        case .table(let table):
            if table.entries.isEmpty { return choices.pick(["{}", "{ }"]) }
            let items = table.entries.flatMap { pairs(key: [$0.key], $0.value) }
            return "{ " + items.joined(separator: ", ") + " }"
        }
    }

    private mutating func scalar(_ value: PlainValue) -> String {
        switch value {
        case .string(let string): return self.string(string)
        case .integer(let integer): return self.integer(integer)
        case .float(let float): return self.float(float)
        case .boolean(let boolean): return boolean ? "true" : "false"
        case .array, .table, .unsupported: preconditionFailure("not a scalar: \(value)")
        }
    }

    // MARK: Keys

    private mutating func dotted(_ path: [String]) -> String {
        path.map { key($0) }.joined(separator: choices.pick([".", " . ", ".\t"]))
    }

    private mutating func key(_ name: String) -> String {
        let bare = !name.isEmpty && name.unicodeScalars.allSatisfy { TreeBuilder.keyCharacters.contains(Character($0)) }
        if bare && choices.chance(70) { return name }
        if !name.contains("'") && !name.unicodeScalars.contains(where: isControl) && choices.chance(40) { return "'\(name)'" }
        return basicString(name)
    }

    // MARK: Strings

    private func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
    }

    private mutating func string(_ value: String) -> String {
        let scalars = value.unicodeScalars
        switch choices.below(4) {
        case 0 where !scalars.contains("'") && !scalars.contains(where: isControl):
            return "'\(value)'"
        case 1
        where !value.contains("'''") && !value.hasSuffix("'")
            && !scalars.contains(where: { isControl($0) && $0 != "\n" }):
            // A newline right after the opening quotes is not part of the string.
            return "'''" + (value.hasPrefix("\n") || choices.chance(50) ? "\n" : "") + value + "'''"
        case 2:
            return multilineBasicString(value)
        default:
            return basicString(value)
        }
    }

    private mutating func basicString(_ value: String) -> String {
        "\"" + value.unicodeScalars.map { escaped($0, multiline: false) }.joined() + "\""
    }

    /// Raw newlines, escapes for the rest, and sometimes a line-ending backslash (which
    /// swallows the line break and the indentation after it) before a non-blank character.
    /// Only before ASCII: toml++ also swallows Unicode blanks there (U+FEFF), where TOML 1.0
    /// (and gestured's reader) stop at the first character that is not space, tab or newline.
    private mutating func multilineBasicString(_ value: String) -> String {
        var body = ""
        for scalar in value.unicodeScalars {
            if scalar.isASCII, scalar != " ", scalar != "\t", scalar != "\n", choices.chance(15) { body += "\\\n   \t\n  " }
            body += escaped(scalar, multiline: true)
        }
        let lead = value.hasPrefix("\n") || choices.chance(50) ? "\n" : ""
        return "\"\"\"" + lead + body + "\"\"\""
    }

    private mutating func escaped(_ scalar: Unicode.Scalar, multiline: Bool) -> String {
        switch scalar {
        case "\"": return "\\\""
        case "\\": return "\\\\"
        case "\n" where multiline && choices.chance(70): return "\n"
        case "\t" where choices.chance(50): return "\t"
        case "\u{08}": return choices.chance(50) ? "\\b" : unicodeEscape(scalar)
        case "\t": return choices.chance(50) ? "\\t" : unicodeEscape(scalar)
        case "\n": return choices.chance(50) ? "\\n" : unicodeEscape(scalar)
        case "\u{0C}": return choices.chance(50) ? "\\f" : unicodeEscape(scalar)
        case "\r": return choices.chance(50) ? "\\r" : unicodeEscape(scalar)
        default:
            if isControl(scalar) || choices.chance(15) { return unicodeEscape(scalar) }
            return String(scalar)
        }
    }

    private mutating func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: choices.chance(50))
        if scalar.value <= 0xFFFF && choices.chance(60) {
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        return "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    // MARK: Numbers

    private mutating func integer(_ value: Int64) -> String {
        if value >= 0 {
            switch choices.below(6) {
            case 0: return "0x" + underscored(String(value, radix: 16, uppercase: choices.chance(50)))
            case 1: return "0o" + underscored(String(value, radix: 8))
            case 2: return "0b" + underscored(String(value, radix: 2))
            case 3: return "+" + underscored(String(value))
            default: break
            }
        }
        let digits = String(value.magnitude)
        return (value < 0 ? "-" : "") + underscored(digits)
    }

    /// Underscores between some digits (never first, last or doubled).
    private mutating func underscored(_ digits: String) -> String {
        guard choices.chance(30) else { return digits }
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, choices.chance(25) { out += "_" }
            out.append(digit)
        }
        return out
    }

    private mutating func float(_ value: Double) -> String {
        if value.isNaN { return choices.pick(["nan", "+nan", "-nan"]) }
        if value.isInfinite { return value < 0 ? "-inf" : choices.pick(["inf", "+inf"]) }
        // Swift writes the shortest text that reads back as the same double: "1.0",
        // "5e-324", "1.7976931348623157e+308"; TOML takes each of these as it is.
        var text = "\(value)"
        if choices.chance(30) { text = String(text.map { $0 == "e" ? "E" : $0 }) }
        if value >= 0, value.sign == .plus, choices.chance(20) { text = "+" + text }
        if let dot = text.firstIndex(of: "."), text[text.index(after: dot)...].first?.isNumber == true,
            text[text.index(after: dot)...].prefix(while: \.isNumber).count >= 2, choices.chance(30)
        {
            text.insert("_", at: text.index(dot, offsetBy: 2))  // 1.2_5
        }
        return text
    }

    // MARK: Layout

    private mutating func spaces() -> String { choices.pick([" ", "", "\t", "  "]) }

    private mutating func indentation() -> String { choices.pick(["", "", "  ", "\t"]) }

    private mutating func comment() -> String {
        choices.chance(20) ? choices.pick([" # a comment", "\t#\"quoted\" [x] = 1", " #"]) : ""
    }
}

/// A random document: the tree it was written from and the text.
func randomDocument(_ script: [Int]) -> (tree: TreeTable, writer: DocumentWriter) {
    var builder = TreeBuilder(choices: Choices(script))
    let tree = builder.table(depth: 3)
    var writer = DocumentWriter(choices: Choices(script.reversed()))
    writer.write(tree)
    return (tree, writer)
}

@Suite("TOML reader against TOMLKit (toml++)")
struct TOMLDifferentialTests {
    static let scripts = Gen.int(in: 0...Int.max).array(of: 1...40)

    @Test func generatedDocumentsReadTheSameInBoth() async {
        await propertyCheck(count: 1000, input: Self.scripts) { script in
            let (tree, writer) = randomDocument(script)
            let expected = tree.plainValue
            let ours = readWithConfigFile(writer.text)
            let theirs = readWithTOMLKit(writer.text)
            #expect((try? ours.get()) == expected, "gestured's reader, document:\n\(writer.text)\n\(ours)")
            #expect((try? theirs.get()) == expected, "TOMLKit, document:\n\(writer.text)\n\(theirs)")
        }
    }

    /// A document with a key repeated, or a table header repeated, is refused by both.
    @Test func generatedRedefinitionsAreRefusedByBoth() async {
        await propertyCheck(count: 200, input: Self.scripts) { script in
            let (_, writer) = randomDocument(script)
            var broken: [String] = []
            if let line = writer.firstRootLine { broken.append(line + "\n" + writer.text) }
            if let header = writer.headers.first { broken.append(writer.text + "\n" + header + "\n") }
            for text in broken {
                #expect(throws: ConfigError.self, "gestured's reader took:\n\(text)") { try readWithConfigFile(text).get() }
                #expect(throws: TOMLParseError.self, "TOMLKit took:\n\(text)") { try readWithTOMLKit(text).get() }
            }
        }
    }

    /// The generator reaches every form it is meant to (else the test above could pass
    /// while never writing, say, an array of tables).
    @Test func generatorReachesEveryForm() {
        var texts = ""
        var state: UInt64 = 0
        for _ in 0..<300 {
            let script = (0..<40).map { _ in
                // SplitMix64: evenly spread scripts, the same on every run.
                state &+= 0x9E37_79B9_7F4A_7C15
                var mixed = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
                mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
                return Int(truncatingIfNeeded: (mixed ^ (mixed >> 31)) >> 1)
            }
            texts += randomDocument(script).writer.text
        }
        for form in [
            "[[", "\n[", "{ ", "'''", "\"\"\"", "\\u", "\\U", "\\b", "\\f", "\\r", "\\\"", "\\\\", "0x", "0o", "0b",
            "_", "nan", "inf", "true", "= '", "E", "\\\n",
        ] {
            #expect(texts.contains(form), "no generated document contains \(form.debugDescription)")
        }
        #expect(texts.contains { $0 == "." }, "no dotted key or float")
    }

    /// TOML 1.0 forbids each of these; both readers must say no.
    @Test(arguments: [
        "a = 1\na = 2",  // duplicate key
        "a = 1\n\"a\" = 2",  // the same key, quoted
        "[t]\n[t]",  // a table defined twice
        "[t]\nx = 1\n[t.x]",  // a key redefined as a table
        "a.b = 1\n[a]",  // a table made by dotted keys, then as a header
        "[a.b]\n[a]\nb = 1",  // a key redefining an existing table
        "t = { x = 1 }\n[t]",  // an inline table extended
        "t = { x = 1 }\nt.y = 2",  // an inline table extended by a dotted key
        "a = [1]\n[[a]]",  // a static array extended as an array of tables
        "[[a]]\n[a]",  // an array of tables redefined as a table
        "a = 1 b = 2",  // two pairs on one line
        "a =",  // no value
        "= 1",  // no key
        "a = 1\n[t",  // an unclosed header
        "[]",  // an empty header
        "a b = 1",  // a key with a space
        "a = \"open",  // an unterminated string
        "a = 'open",  // an unterminated literal string
        "a = \"\"\"open",  // an unterminated multi-line string
        "a = \"line\nbreak\"",  // a newline in a basic string
        "a = \"\\x41\"",  // an unknown escape
        "a = \"\\e\"",  // \e is TOML 1.1, not 1.0
        "a = \"\\u12\"",  // a short unicode escape
        "a = \"\\uD800\"",  // a surrogate is no scalar
        "a = \"\\U00110000\"",  // beyond Unicode
        "a = \"bell \u{07}\"",  // a raw control character
        "a = \"del \u{7F}\"",  // a raw DEL
        "a = 'tab ok but nul \u{01}'",  // a control character in a literal string
        "# comment with \u{01}\na = 1",  // a control character in a comment
        "a = 01",  // a leading zero
        "a = 1__0",  // a double underscore
        "a = _1",  // a leading underscore
        "a = 1_",  // a trailing underscore
        "a = 0x",  // no hex digits
        "a = 0xG",  // not a hex digit
        "a = 0o8",  // not an octal digit
        "a = 0b2",  // not a binary digit
        "a = -0x1",  // a sign on a hex integer
        "a = 9223372036854775808",  // beyond 64 bits
        "a = -9223372036854775809",  // below 64 bits
        "a = 1.",  // no fraction digits
        "a = .5",  // no integer digits
        "a = 1e",  // no exponent digits
        "a = 1.e5",  // no fraction before the exponent
        "a = 1e5.0",  // a fraction after the exponent
        "a = Inf",  // infinity is lower case
        "a = NaN",  // so is nan
        "a = TRUE",  // so are booleans
        "a = bare",  // an unquoted string
        "a = [1 2]",  // array items without a comma
        "a = [1,,2]",  // an empty array item
        "a = [1",  // an unclosed array
        "t = { x = 1, }",  // a trailing comma in an inline table
        "t = { x = 1\n}",  // a newline in an inline table
        "t = { x = 1, x = 2 }",  // a duplicate key in an inline table
        "\"\"\"key\"\"\" = 1",  // a multi-line string as a key
        "a = 1 # ok\nb = 2 c",  // garbage after a value
    ])
    func forbiddenDocumentsAreRefusedByBoth(_ text: String) {
        #expect(throws: ConfigError.self) { try readWithConfigFile(text).get() }
        #expect(throws: TOMLParseError.self) { try readWithTOMLKit(text).get() }
    }

    /// Where the two differ on purpose: TOML's dates and times are valid TOML, which
    /// TOMLKit reads, and gestured's reader refuses with a message saying why (no key of
    /// gestured's configuration takes one; docs/configuration.md).
    @Test(arguments: ["d = 1979-05-27", "t = 07:32:00", "dt = 1979-05-27T07:32:00Z", "ldt = 1979-05-27 07:32:00.999"])
    func datesAreValidTOMLThatGesturedRefuses(_ text: String) throws {
        let refusal = try #require(throws: ConfigError.self) { try readWithConfigFile(text).get() }
        #expect(refusal.description.contains("dates and times are not supported"))
        let theirs = try readWithTOMLKit(text).get()
        guard case .table(let entries) = theirs, case .unsupported = entries.values.first else {
            Issue.record("TOMLKit read \(text) as \(theirs)")
            return
        }
    }
}
