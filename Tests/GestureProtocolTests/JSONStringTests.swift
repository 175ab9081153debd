import GestureProtocol
import Testing

@Suite("WireEncoder.jsonString: the protocol's string escaping for JSON written beside it")
struct JSONStringTests {
    @Test("quotes, backslashes and control characters are escaped; other text is kept as it is")
    func escapes() {
        #expect(WireEncoder.jsonString("plain name") == #""plain name""#)
        #expect(WireEncoder.jsonString("a \"b\"\\c") == #""a \"b\"\\c""#)
        #expect(WireEncoder.jsonString("\n\r\t\u{0}\u{1f}") == #""\n\r\t\u0000\u001f""#)
        #expect(WireEncoder.jsonString("é ✓ \u{7f}") == "\"é ✓ \u{7f}\"")
        #expect(WireEncoder.jsonString("") == #""""#)
    }

    @Test("a string is escaped exactly as in a protocol line")
    func sameAsTheProtocol() {
        let text = "a\u{2}\"b\"\\\n"
        let line = String(decoding: WireEncoder.encode(ServerMessage.error(message: text)), as: UTF8.self)
        #expect(line == #"{"type":"error","message":"# + WireEncoder.jsonString(text) + "}\n")
    }
}
