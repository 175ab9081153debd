import Testing

@testable import ConfigFile

/// Parses `text` and returns the value at a dotted path of table keys.
private func value(_ text: String, _ path: String...) throws -> TOMLNode? {
    var table = try TOMLParser.parse(text, path: "t.toml")
    for key in path.dropLast() {
        switch table[key]?.value {
        case .table(let sub): table = sub
        case .tableArray(let tables): table = tables[tables.count - 1]
        default: return nil
        }
    }
    return table[path[path.count - 1]]
}

private func string(_ text: String, _ path: String...) throws -> String? {
    var table = try TOMLParser.parse(text, path: "t.toml")
    for key in path.dropLast() {
        guard case .table(let sub) = table[key]?.value else { return nil }
        table = sub
    }
    guard case .string(let value) = table[path[path.count - 1]]?.value else {
        return nil
    }
    return value
}

@Suite struct TOMLParserTests {
    @Test func basicStringEscapes() throws {
        let text = #"s = "tab\there \"q\" back\\slash \u00e9 \U0001F600 nl\n""#
        #expect(try string(text, "s") == "tab\there \"q\" back\\slash é 😀 nl\n")
    }

    @Test func literalStringsKeepBackslashes() throws {
        #expect(try string(#"s = 'C:\path\n'"#, "s") == #"C:\path\n"#)
    }

    @Test func multilineBasicStringTrimsFirstNewlineAndJoinsBackslashLines() throws {
        let text = "s = \"\"\"\nline one\nthe \\\n    quick \\\n\n  fox\"\"\"\nafter = 1\n"
        #expect(try string(text, "s") == "line one\nthe quick fox")
        #expect(try value(text, "after")?.line == 7)
    }

    @Test func multilineLiteralStringAndQuotesBeforeTheEnd() throws {
        #expect(try string("s = '''\nraw \\n ''line'''\n", "s") == "raw \\n ''line")
        #expect(try string("s = \"\"\"two quotes: \"\"\"\"\"\n", "s") == "two quotes: \"\"")
    }

    @Test func commentsEverywhere() throws {
        let text = """
            # leading comment
            a = 1 # trailing comment with "quotes" and [brackets]
            s = "not # a comment" # but this is
            [t] # comment after a header
            b = [ # comment inside an array
              1, # one
              # a whole-line comment
              2,
            ] # done
            """
        #expect(try string(text, "s") == "not # a comment")
        guard case .array(let elements) = try value(text, "t", "b")?.value else {
            Issue.record("b is not an array")
            return
        }
        #expect(elements.map(\.line) == [6, 8])
    }

    @Test func integersInEveryBase() throws {
        let cases: [(String, Int64)] = [
            ("+17", 17), ("-17", -17), ("0", 0), ("1_000_000", 1_000_000),
            ("0xDEAD_beef", 0xDEAD_BEEF), ("0o660", 0o660), ("0b1101", 13),
            ("9223372036854775807", .max), ("-9223372036854775808", .min),
        ]
        for (literal, expected) in cases {
            guard case .integer(let parsed) = try value("n = \(literal)", "n")?.value else {
                Issue.record("\(literal) is not an integer")
                continue
            }
            #expect(parsed == expected, "\(literal)")
        }
    }

    @Test func floats() throws {
        let cases: [(String, Double)] = [
            ("3.0", 3), ("-0.5", -0.5), ("1e3", 1000), ("6.626e-34", 6.626e-34), ("1_000.5", 1000.5),
            ("+inf", .infinity), ("-inf", -.infinity), ("2E+2", 200),
        ]
        for (literal, expected) in cases {
            guard case .float(let parsed) = try value("x = \(literal)", "x")?.value else {
                Issue.record("\(literal) is not a float")
                continue
            }
            #expect(parsed == expected, "\(literal)")
        }
        guard case .float(let nan) = try value("x = nan", "x")?.value else {
            Issue.record("nan is not a float")
            return
        }
        #expect(nan.isNaN)
    }

    @Test(arguments: ["1.", ".5", "1e", "0x", "0xG1", "+0x10", "1_", "_1", "01", "1.5.2", "--1"])
    func malformedNumbersAreRejected(_ literal: String) {
        #expect(throws: ConfigError.self) {
            _ = try TOMLParser.parse("n = \(literal)", path: "t.toml")
        }
    }

    @Test func arraysAcrossLinesNestedAndWithTrailingComma() throws {
        let text = "a = [\n  [1, 2],\n  [\"x\", 'y'],\n  { k = true },\n]\n"
        guard case .array(let elements) = try value(text, "a")?.value else {
            Issue.record("a is not an array")
            return
        }
        #expect(elements.count == 3)
        #expect(elements.map(\.line) == [2, 3, 4])
        guard case .table(let inline) = elements[2].value, case .boolean(true) = inline["k"]?.value else {
            Issue.record("third element is not { k = true }")
            return
        }
    }

    @Test func inlineTablesAndDottedKeys() throws {
        let text = #"""
            point = { x = 1, y.z = 2, "quoted key" = 'v' }
            a.b.c = 3
            a . "b" . d = 4
            [t]
            site."example.com" = true
            """#
        guard case .table(let point) = try value(text, "point")?.value,
            case .table(let y) = point["y"]?.value
        else {
            Issue.record("point is not an inline table with a dotted key")
            return
        }
        #expect(point.keys == ["x", "y", "quoted key"])
        #expect(y["z"]?.line == 1)
        #expect(try value(text, "a", "b", "d")?.line == 3)
        guard case .table(let site) = try value(text, "t", "site")?.value else {
            Issue.record("site is not a table")
            return
        }
        #expect(site.keys == ["example.com"])
    }

    @Test func arraysOfTablesAndTheirSubTables() throws {
        let text = """
            [[fruit]]
            name = "apple"
            [fruit.physical]
            color = "red"
            [[fruit]]
            name = "banana"
            [[fruit.variety]]
            name = "plantain"
            """
        let root = try TOMLParser.parse(text, path: "t.toml")
        guard case .tableArray(let fruits) = root["fruit"]?.value else {
            Issue.record("fruit is not an array of tables")
            return
        }
        #expect(fruits.map(\.line) == [1, 5])
        #expect(fruits[0]["physical"] != nil)
        #expect(fruits[1]["physical"] == nil)
        guard case .tableArray(let varieties) = fruits[1]["variety"]?.value else {
            Issue.record("variety is not an array of tables")
            return
        }
        #expect(varieties[0]["name"]?.line == 8)
    }

    @Test func superTableMayBeDefinedAfterItsSubTable() throws {
        let root = try TOMLParser.parse("[a.b]\nc = 1\n[a]\nd = 2\n", path: "t.toml")
        guard case .table(let a) = root["a"]?.value else {
            Issue.record("a is not a table")
            return
        }
        #expect(a.keys == ["b", "d"])
        #expect(a.line == 3)
    }

    @Test(arguments: [
        "a = 1\na = 2",  // duplicate key
        "[a]\n[a]",  // duplicate table
        "a = {}\n[a]",  // inline table re-opened
        "a = {}\na.b = 1",  // inline table extended by a dotted key
        "[[a]]\n[a]",  // array of tables re-declared as a table
        "a = [1]\n[[a]]",  // static array extended
        "[a.b]\nc = 1\n[a]\nb.d = 1",  // header-defined table extended by a dotted key
        "a = \"x\"\n[a.b]",  // a value used as a table
        "s = \"ctrl\u{01}char\"",  // control character in a string
        "# comment with \u{7F} delete",  // control character in a comment
        "a = 07:32:00",  // times are not supported
        "a = true false",  // two values
        "= 1",  // no key
        "a.= 1",  // empty dotted part
        "a = 'unterminated",
        "a = \"\\u12\"",  // short unicode escape
        "a = \"\\uD800\"",  // surrogate is not a scalar
    ])
    func invalidDocumentsAreRejected(_ text: String) {
        #expect(throws: ConfigError.self) {
            _ = try TOMLParser.parse(text, path: "t.toml")
        }
    }

    @Test func emptyAndCommentOnlyDocumentsAreValid() throws {
        #expect(try TOMLParser.parse("", path: "t.toml").keys.isEmpty)
        #expect(try TOMLParser.parse("# nothing\n\n   \t\n# here", path: "t.toml").keys.isEmpty)
    }
}
