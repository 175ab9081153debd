/// A small, strict TOML 1.0 parser that remembers the line of every key and value, so
/// configuration errors can name their line. Supports tables, arrays of tables, dotted
/// keys, basic/literal (multi-line) strings with escapes, integers (decimal, 0x, 0o, 0b),
/// floats (incl. inf/nan), booleans, arrays and inline tables. Dates and times are
/// rejected: no gestured key takes one.
///
/// Linear in the input, and bounded: values nest at most `maximumNesting` arrays and inline
/// tables deep and keys have at most `maximumKeyParts` parts, so that no file (the parser
/// runs inside the daemon on reload) can exhaust the stack or take quadratic time.
struct TOMLParser {
    /// Arrays and inline tables one value may nest (gestured's deepest is 3:
    /// `region = [{ tap = { … } }]`).
    static let maximumNesting = 16
    /// Parts of one dotted key or table header (gestured's longest is 4: `device.gestures.tap.slop`).
    static let maximumKeyParts = 16

    private let bytes: [UInt8]
    private let path: String
    private var position = 0
    private var line = 1
    private let root: TOMLTable
    /// The table the latest `[header]` opened; key/value lines go here.
    private var current: TOMLTable
    /// Arrays and inline tables open around the value being parsed.
    private var nesting = 0

    /// Parses a whole document into its root table.
    static func parse(_ text: String, path: String) throws(ConfigError) -> TOMLTable {
        var parser = TOMLParser(text: text, path: path)
        try parser.parseDocument()
        return parser.root
    }

    private init(text: String, path: String) {
        bytes = Array(text.utf8)
        self.path = path
        root = TOMLTable(origin: .header, line: 1, path: [])
        current = root
    }

    // MARK: Document structure

    private mutating func parseDocument() throws(ConfigError) {
        while true {
            skipSpaces()
            guard let byte = peek() else {
                return
            }
            switch byte {
            case UInt8(ascii: "#"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                try finishLine(after: "")
            case UInt8(ascii: "["):
                try parseHeader()
                try finishLine(after: "a table header")
            default:
                try parseKeyValue(into: current)
                try finishLine(after: "a value")
            }
        }
    }

    /// Skips trailing spaces and a comment, then requires the end of the line (or file).
    private mutating func finishLine(after what: String) throws(ConfigError) {
        skipSpaces()
        if peek() == UInt8(ascii: "#") {
            try skipComment()
        }
        guard let byte = peek() else {
            return
        }
        guard byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else {
            throw error("expected the end of the line after \(what), found \(describe(byte))")
        }
        try consumeNewline()
    }

    private mutating func parseHeader() throws(ConfigError) {
        let headerLine = line
        position += 1  // [
        let isArray = peek() == UInt8(ascii: "[")
        if isArray {
            position += 1
        }
        skipSpaces()
        let keys = try parseKey()
        skipSpaces()
        guard peek() == UInt8(ascii: "]") else {
            throw error("expected ']' to close the table header, found \(describe(peek()))")
        }
        position += 1
        if isArray {
            guard peek() == UInt8(ascii: "]") else {
                throw error("expected ']]' to close the array-of-tables header, found \(describe(peek()))")
            }
            position += 1
        }
        current = try openTable(keys, isArray: isArray, line: headerLine)
    }

    /// Finds or creates the table a header names, enforcing TOML's "define once" rules.
    private func openTable(_ keys: [String], isArray: Bool, line headerLine: Int) throws(ConfigError) -> TOMLTable {
        var table = root
        for (depth, key) in keys.dropLast().enumerated() {
            let prefix = keys[...depth].joined(separator: ".")
            if let existing = table[key] {
                switch existing.value {
                case .table(let sub) where sub.origin == .inline:
                    throw error("cannot add to '\(prefix)': it is an inline table (line \(existing.line))")
                case .table(let sub):
                    table = sub
                case .tableArray(let elements):
                    table = elements[elements.count - 1]
                case .string, .integer, .float, .boolean, .array:
                    throw error("'\(prefix)' is already a value (line \(existing.line)), not a table")
                }
            } else {
                let sub = TOMLTable(origin: .implicit, line: headerLine, path: Array(keys[...depth]))
                table.set(key, TOMLNode(value: .table(sub), line: headerLine))
                table = sub
            }
        }
        let last = keys[keys.count - 1]
        let name = keys.joined(separator: ".")
        let opened = TOMLTable(origin: .header, line: headerLine, path: keys)
        // Before `existing` below holds a second reference to the array.
        if isArray, table.appendToTableArray(last, opened) {
            return opened
        }
        guard let existing = table[last] else {
            let value: TOMLValue = isArray ? .tableArray([opened]) : .table(opened)
            table.set(last, TOMLNode(value: value, line: headerLine))
            return opened
        }
        switch (existing.value, isArray) {
        case (.table(let sub), false) where sub.origin == .implicit:
            sub.origin = .header
            sub.line = headerLine
            return sub
        case (.table, false), (.tableArray, false):
            throw error("table [\(name)] is already defined (line \(existing.line))")
        case (.table, true), (.tableArray, true), (.string, _), (.integer, _), (.float, _), (.boolean, _), (.array, _):
            throw error("'\(name)' is already defined (line \(existing.line)) and is not an array of tables")
        }
    }

    private mutating func parseKeyValue(into table: TOMLTable) throws(ConfigError) {
        let keyLine = line
        let keys = try parseKey()
        skipSpaces()
        guard peek() == UInt8(ascii: "=") else {
            throw error("expected '=' after key '\(keys.joined(separator: "."))', found \(describe(peek()))")
        }
        position += 1
        skipSpaces()
        let node = try parseValue()
        try insert(node, at: keys, into: table, line: keyLine)
    }

    /// Stores a value under a (dotted) key, creating the intermediate tables.
    private func insert(_ node: TOMLNode, at keys: [String], into table: TOMLTable, line keyLine: Int) throws(ConfigError) {
        var table = table
        for (depth, key) in keys.dropLast().enumerated() {
            if let existing = table[key] {
                guard case .table(let sub) = existing.value, sub.origin == .dottedKey else {
                    let prefix = keys[...depth].joined(separator: ".")
                    throw error("cannot add keys to '\(prefix)' here: it is already defined (line \(existing.line))")
                }
                table = sub
            } else {
                let sub = TOMLTable(origin: .dottedKey, line: keyLine, path: table.path + [key])
                table.set(key, TOMLNode(value: .table(sub), line: keyLine))
                table = sub
            }
        }
        let last = keys[keys.count - 1]
        if let existing = table[last] {
            throw error("key '\(keys.joined(separator: "."))' is already defined (line \(existing.line))")
        }
        table.set(last, node)
    }

    /// A dotted key: `a`, `a.b`, `"quoted key".'literal'`.
    private mutating func parseKey() throws(ConfigError) -> [String] {
        var keys: [String] = []
        while true {
            skipSpaces()
            switch peek() {
            case UInt8(ascii: "\""):
                keys.append(try parseBasicString())
            case UInt8(ascii: "'"):
                keys.append(try parseLiteralString())
            default:
                let start = position
                while let byte = peek(), isBareKeyByte(byte) {
                    position += 1
                }
                guard position > start else {
                    throw error("expected a key, found \(describe(peek()))")
                }
                keys.append(String(decoding: bytes[start..<position], as: UTF8.self))
            }
            skipSpaces()
            guard peek() == UInt8(ascii: ".") else {
                return keys
            }
            guard keys.count < Self.maximumKeyParts else {
                throw error("a key has more than \(Self.maximumKeyParts) dotted parts")
            }
            position += 1
        }
    }

    // MARK: Values

    private mutating func parseValue() throws(ConfigError) -> TOMLNode {
        let valueLine = line
        let value: TOMLValue
        switch peek() {
        case UInt8(ascii: "\""):
            value = .string(
                startsWith("\"\"\"")
                    ? try parseMultilineString(quote: UInt8(ascii: "\""))
                    : try parseBasicString())
        case UInt8(ascii: "'"):
            value = .string(
                startsWith("'''")
                    ? try parseMultilineString(quote: UInt8(ascii: "'"))
                    : try parseLiteralString())
        case UInt8(ascii: "["):
            try enterNesting()
            value = .array(try parseArray())
            nesting -= 1
        case UInt8(ascii: "{"):
            try enterNesting()
            value = .table(try parseInlineTable())
            nesting -= 1
        case nil, UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "#"), UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"):
            throw error("expected a value, found \(describe(peek()))")
        default:
            value = try parseScalarToken()
        }
        return TOMLNode(value: value, line: valueLine)
    }

    private mutating func enterNesting() throws(ConfigError) {
        nesting += 1
        guard nesting <= Self.maximumNesting else {
            throw error("arrays and inline tables nest more than \(Self.maximumNesting) deep")
        }
    }

    private mutating func parseArray() throws(ConfigError) -> [TOMLNode] {
        let openLine = line
        position += 1  // [
        var elements: [TOMLNode] = []
        while true {
            try skipSpacesNewlinesAndComments()
            switch peek() {
            case nil:
                throw ConfigError(path: path, line: openLine, message: "unterminated array: no ']' before the end of the file")
            case UInt8(ascii: "]"):
                position += 1
                return elements
            default:
                elements.append(try parseValue())
            }
            try skipSpacesNewlinesAndComments()
            switch peek() {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "]"):
                position += 1
                return elements
            case nil:
                throw ConfigError(path: path, line: openLine, message: "unterminated array: no ']' before the end of the file")
            default:
                throw error("expected ',' or ']' in the array, found \(describe(peek()))")
            }
        }
    }

    private mutating func parseInlineTable() throws(ConfigError) -> TOMLTable {
        let table = TOMLTable(origin: .inline, line: line, path: [])
        position += 1  // {
        skipSpaces()
        if peek() == UInt8(ascii: "}") {
            position += 1
            return table
        }
        while true {
            skipSpaces()
            try parseKeyValue(into: table)
            skipSpaces()
            switch peek() {
            case UInt8(ascii: ","):
                position += 1
                skipSpaces()
                if peek() == UInt8(ascii: "}") {
                    throw error("a trailing comma is not allowed in an inline table")
                }
            case UInt8(ascii: "}"):
                position += 1
                return table
            case nil, UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error("an inline table must end with '}' on the same line")
            default:
                throw error("expected ',' or '}' in the inline table, found \(describe(peek()))")
            }
        }
    }

    /// Booleans, numbers, and the clear errors for dates and unquoted words.
    private mutating func parseScalarToken() throws(ConfigError) -> TOMLValue {
        let start = position
        while let byte = peek(), isTokenByte(byte) {
            position += 1
        }
        let token = Array(bytes[start..<position])
        let text = String(decoding: token, as: UTF8.self)
        switch text {
        case "":
            throw error("expected a value, found \(describe(peek()))")
        case "true":
            return .boolean(true)
        case "false":
            return .boolean(false)
        case "inf", "+inf":
            return .float(.infinity)
        case "-inf":
            return .float(-.infinity)
        case "nan", "+nan", "-nan":
            return .float(.nan)
        default:
            break
        }
        if looksLikeDateOrTime(token) {
            throw error("dates and times are not supported in gestured's configuration ('\(text)')")
        }
        guard let first = token.first, isDigit(first) || first == UInt8(ascii: "+") || first == UInt8(ascii: "-") else {
            throw error("invalid value '\(text)' (strings must be quoted: \"\(text)\")")
        }
        return try parseNumber(token, text: text)
    }

    private func parseNumber(_ token: [UInt8], text: String) throws(ConfigError) -> TOMLValue {
        let invalid = error("invalid number '\(text)'")
        if token.count > 2, token[0] == UInt8(ascii: "0") {
            let radix: Int?
            switch token[1] {
            case UInt8(ascii: "x"): radix = 16
            case UInt8(ascii: "o"): radix = 8
            case UInt8(ascii: "b"): radix = 2
            default: radix = nil
            }
            if let radix {
                guard digitsEnd(token, from: 2, radix: radix) == token.count else {
                    throw invalid
                }
                let digits = token[2...].filter { $0 != UInt8(ascii: "_") }
                guard let value = Int64(String(decoding: digits, as: UTF8.self), radix: radix) else {
                    throw error("integer '\(text)' does not fit in 64 bits")
                }
                return .integer(value)
            }
        }
        var index = 0
        if token[index] == UInt8(ascii: "+") || token[index] == UInt8(ascii: "-") {
            index += 1
        }
        let integerStart = index
        index = digitsEnd(token, from: index, radix: 10)
        guard index > integerStart else {
            throw invalid
        }
        if index - integerStart > 1, token[integerStart] == UInt8(ascii: "0") {
            throw error("leading zeros are not allowed in '\(text)' (write octal as 0o\(text.drop(while: { $0 == "0" || $0 == "+" })))")
        }
        var isFloat = false
        if index < token.count, token[index] == UInt8(ascii: ".") {
            let fractionStart = index + 1
            index = digitsEnd(token, from: fractionStart, radix: 10)
            guard index > fractionStart else {
                throw invalid
            }
            isFloat = true
        }
        if index < token.count, token[index] == UInt8(ascii: "e") || token[index] == UInt8(ascii: "E") {
            index += 1
            if index < token.count, token[index] == UInt8(ascii: "+") || token[index] == UInt8(ascii: "-") {
                index += 1
            }
            let exponentStart = index
            index = digitsEnd(token, from: exponentStart, radix: 10)
            guard index > exponentStart else {
                throw invalid
            }
            isFloat = true
        }
        guard index == token.count else {
            throw invalid
        }
        let cleaned = String(decoding: token.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
        if isFloat {
            guard let value = Double(cleaned), value.isFinite else {
                throw error("float '\(text)' is out of range")
            }
            return .float(value)
        }
        guard let value = Int64(cleaned) else {
            throw error("integer '\(text)' does not fit in 64 bits")
        }
        return .integer(value)
    }

    /// End of a run of digits in `radix` with single underscores between digits.
    private func digitsEnd(_ token: [UInt8], from start: Int, radix: Int) -> Int {
        var index = start
        var lastWasDigit = false
        while index < token.count {
            let byte = token[index]
            if byte == UInt8(ascii: "_") {
                guard lastWasDigit, index + 1 < token.count, digitValue(token[index + 1]).map({ $0 < radix }) == true else {
                    return index
                }
                lastWasDigit = false
            } else if let digit = digitValue(byte), digit < radix {
                lastWasDigit = true
            } else {
                return index
            }
            index += 1
        }
        return index
    }

    // MARK: Strings

    private mutating func parseBasicString() throws(ConfigError) -> String {
        position += 1  // "
        var out: [UInt8] = []
        while true {
            guard let byte = peek(), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") else {
                throw error("unterminated string (a basic string ends on its line with '\"')")
            }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &out)
            default:
                try checkNotControl(byte, in: "a string")
                out.append(byte)
                position += 1
            }
        }
    }

    private mutating func parseLiteralString() throws(ConfigError) -> String {
        position += 1  // '
        let start = position
        while true {
            guard let byte = peek(), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") else {
                throw error("unterminated string (a literal string ends on its line with \"'\")")
            }
            if byte == UInt8(ascii: "'") {
                position += 1
                return String(decoding: bytes[start..<(position - 1)], as: UTF8.self)
            }
            try checkNotControl(byte, in: "a string")
            position += 1
        }
    }

    /// `"""…"""` (with escapes) or `'''…'''` (without); a newline right after the opening
    /// delimiter is dropped; up to two quotes may directly precede the closing delimiter.
    private mutating func parseMultilineString(quote: UInt8) throws(ConfigError) -> String {
        let openLine = line
        let isBasic = quote == UInt8(ascii: "\"")
        position += 3
        if peek() == UInt8(ascii: "\n") || (peek() == UInt8(ascii: "\r") && peek(1) == UInt8(ascii: "\n")) {
            try consumeNewline()
        }
        var out: [UInt8] = []
        while true {
            guard let byte = peek() else {
                throw ConfigError(
                    path: path, line: openLine, message: "unterminated multi-line string: no closing quotes before the end of the file")
            }
            switch byte {
            case quote:
                var run = 0
                while peek(run) == quote {
                    run += 1
                }
                if run >= 3 {
                    guard run <= 5 else {
                        throw error("too many quotes closing the multi-line string")
                    }
                    out.append(contentsOf: repeatElement(quote, count: run - 3))
                    position += run
                    return String(decoding: out, as: UTF8.self)
                }
                out.append(contentsOf: repeatElement(quote, count: run))
                position += run
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                try consumeNewline()
                out.append(UInt8(ascii: "\n"))
            case UInt8(ascii: "\\") where isBasic:
                if isLineEndingBackslash() {
                    position += 1
                    try skipSpacesNewlinesAndComments(allowComments: false)
                } else {
                    try parseEscape(into: &out)
                }
            default:
                try checkNotControl(byte, in: "a string")
                out.append(byte)
                position += 1
            }
        }
    }

    /// A backslash followed only by spaces up to the end of the line.
    private func isLineEndingBackslash() -> Bool {
        var offset = 1
        while peek(offset) == UInt8(ascii: " ") || peek(offset) == UInt8(ascii: "\t") {
            offset += 1
        }
        return peek(offset) == UInt8(ascii: "\n") || peek(offset) == UInt8(ascii: "\r")
    }

    private mutating func parseEscape(into out: inout [UInt8]) throws(ConfigError) {
        position += 1  // backslash
        guard let byte = peek() else {
            throw error("unterminated string")
        }
        position += 1
        switch byte {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "\""): out.append(byte)
        case UInt8(ascii: "\\"): out.append(byte)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = byte == UInt8(ascii: "u") ? 4 : 8
            let end = position + count
            guard end <= bytes.count,
                bytes[position..<end].allSatisfy({ digitValue($0).map { $0 < 16 } == true }),
                let code = UInt32(String(decoding: bytes[position..<end], as: UTF8.self), radix: 16),
                let scalar = Unicode.Scalar(code)
            else {
                throw error(
                    "invalid unicode escape '\\\(Character(Unicode.Scalar(byte)))' (needs \(count) hex digits naming a Unicode scalar)")
            }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
            position = end
        default:
            throw error("invalid escape '\\\(byte < 0x80 && byte >= 0x20 ? String(Character(Unicode.Scalar(byte))) : "?")' in string")
        }
    }

    private func checkNotControl(_ byte: UInt8, in place: String) throws(ConfigError) {
        if (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F {
            throw error("control character \(describe(byte)) in \(place) (use an escape)")
        }
    }

    // MARK: Whitespace, comments, lines

    private mutating func skipSpaces() {
        while peek() == UInt8(ascii: " ") || peek() == UInt8(ascii: "\t") {
            position += 1
        }
    }

    private mutating func skipSpacesNewlinesAndComments(allowComments: Bool = true) throws(ConfigError) {
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                position += 1
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                try consumeNewline()
            case UInt8(ascii: "#") where allowComments:
                try skipComment()
            default:
                return
            }
        }
    }

    /// From `#` to the end of the line (not consuming the newline).
    private mutating func skipComment() throws(ConfigError) {
        while let byte = peek(), byte != UInt8(ascii: "\n") {
            if byte == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") {
                return
            }
            try checkNotControl(byte, in: "a comment")
            position += 1
        }
    }

    private mutating func consumeNewline() throws(ConfigError) {
        if peek() == UInt8(ascii: "\r") {
            guard peek(1) == UInt8(ascii: "\n") else {
                throw error("carriage return without a line feed")
            }
            position += 1
        }
        position += 1
        line += 1
    }

    // MARK: Helpers

    private func peek(_ offset: Int = 0) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    private func startsWith(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard position + count <= bytes.count else {
            return false
        }
        return prefix.withUTF8Buffer { buffer in buffer.elementsEqual(bytes[position..<(position + count)]) }
    }

    private func error(_ message: String) -> ConfigError {
        ConfigError(path: path, line: line, message: message)
    }

    private func describe(_ byte: UInt8?) -> String {
        guard let byte else {
            return "the end of the file"
        }
        switch byte {
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
            return "the end of the line"
        case 0x21...0x7E:
            return "'\(Character(Unicode.Scalar(byte)))'"
        case UInt8(ascii: " "):
            return "a space"
        case UInt8(ascii: "\t"):
            return "a tab"
        case 0x80...:
            return "a non-ASCII character"
        default:
            return "byte 0x\(String(byte, radix: 16))"
        }
    }

    private func isBareKeyByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    /// Bytes that may appear in a number, boolean, or date token.
    private func isTokenByte(_ byte: UInt8) -> Bool {
        isBareKeyByte(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private func digitValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    /// `1979-05-27…` or `07:32:00…`.
    private func looksLikeDateOrTime(_ token: [UInt8]) -> Bool {
        let date = token.count >= 5 && token[0..<4].allSatisfy(isDigit) && token[4] == UInt8(ascii: "-")
        let time = token.count >= 3 && token[0..<2].allSatisfy(isDigit) && token[2] == UInt8(ascii: ":")
        return date || time
    }
}
