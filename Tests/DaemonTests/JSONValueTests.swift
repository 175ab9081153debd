@testable import Daemon
import Testing

/// The request parser's JSON reader (the daemon reads request lines without Foundation).
@Suite struct JSONValueTests {
    private func parse(_ text: String) -> JSONValue? {
        JSONValue.parse(Array(text.utf8)[...])
    }

    @Test func readsEveryKindOfValue() {
        #expect(parse(#" {"a": [1, -2.5e3, 0.25, true, false, null], "b": {}, "c": [] } "#) == .object([
            "a": .array([.number(1), .number(-2500), .number(0.25), .bool(true), .bool(false), .null]),
            "b": .object([:]),
            "c": .array([]),
        ]))
        #expect(parse("\t\r\n\"x\"\n") == .string("x"))
        #expect(parse(#"{"k":1,"k":2}"#) == .object(["k": .number(2)]))
    }

    @Test func decodesStringEscapesAndUTF8() {
        #expect(parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{c}\n\r\t"))
        #expect(parse(#""\u00e9\u20AC\ud83d\ude00""#) == .string("é€😀"))
        #expect(parse("\"zoë 👋\"") == .string("zoë 👋"))
    }

    @Test(arguments: [
        "", " ", "{", "}", "[1,]", "[,1]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{\"a\":1}x",
        "tru", "nul", "True", "01", "-", "1.", ".5", "1e", "+1", "0x10", "NaN",
        "\"open", "\"bad \\x escape\"", "\"\\u12\"", "\"\\ud83d\"", "\"\\ude00\"", "\"tab\there\"",
        "'single'", "[1] [2]",
    ])
    func refusesInvalidJSON(_ text: String) {
        #expect(parse(text) == nil, "\(text)")
    }

    @Test func refusesInvalidUTF8() {
        #expect(JSONValue.parse([0x22, 0xFF, 0x22][...]) == nil)
        #expect(JSONValue.parse([0x22, 0xC3, 0x22][...]) == nil)
    }

    @Test func limitsNesting() {
        let deep = String(repeating: "[", count: JSONValue.maximumDepth) + String(repeating: "]", count: JSONValue.maximumDepth)
        #expect(parse(deep) != nil)
        let tooDeep = "[" + deep + "]"
        #expect(parse(tooDeep) == nil)
        // A hostile line at the length limit ends in an error, not a stack overflow.
        #expect(parse(String(repeating: "[", count: 64 * 1024)) == nil)
        #expect(parse(String(repeating: "{\"a\":", count: 10_000)) == nil)
    }

    @Test func requestsAreReadFromIt() throws {
        #expect(try Request(line: Array(#"{"type":"ping"}"#.utf8)[...]) == .ping)
        var expected = Subscription()
        expected.gestures = [.tap, .swipe]
        expected.regions = ["menu", nil]
        expected.devices = ["ELAN Touchscreen"]
        expected.touches = true
        let line = #"{"type":"subscribe","gestures":["tap","swipe"],"regions":["menu",null],"devices":["ELAN Touchscreen"],"touches":true}"#
        #expect(try Request(line: Array(line.utf8)[...]) == .subscribe(expected))
        let nulls = #"{"type":"subscribe","gestures":null,"regions":null,"devices":null,"touches":null}"#
        #expect(try Request(line: Array(nulls.utf8)[...]) == .subscribe(Subscription()))
        #expect(throws: RequestError(message: "\"regions\" must be an array of strings (null: outside every region)")) {
            try Request(line: Array(#"{"type":"subscribe","regions":[1]}"#.utf8)[...])
        }
        #expect(throws: RequestError(message: "a request must be a JSON object")) {
            try Request(line: Array("42".utf8)[...])
        }
    }
}
