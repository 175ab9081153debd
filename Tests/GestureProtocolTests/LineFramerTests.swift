import GestureProtocol
import Testing

@Suite("Splitting the daemon's stream into bounded lines")
struct LineFramerTests {
    @Test("lines split across reads come out whole, in order, without their newlines")
    func linesAcrossReads() throws {
        var framer = LineFramer(maximumLength: 64)
        #expect(try framer.append(Array("ab".utf8)).isEmpty)
        #expect(try framer.append(Array("c\nde\n\nf".utf8)) == [Array("abc".utf8), Array("de".utf8), []])
        #expect(framer.pendingCount == 1)
        #expect(try framer.append(Array("g\n".utf8)) == [Array("fg".utf8)])
        #expect(framer.pendingCount == 0)
    }

    /// Before, a peer streaming bytes without a newline took `gesturectl` from
    /// 43 to 107 MB in 40 s at 100 % CPU. The earlier reader had no limit (this
    /// type did not exist); now a line past the limit is an error, whatever the chunking.
    @Test("a line longer than the limit is an error, not a growing buffer")
    func lineTooLong() throws {
        var framer = LineFramer(maximumLength: 1_000)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 100)
        for _ in 0..<10 {
            #expect(try framer.append(chunk).isEmpty)
        }
        #expect(throws: LineFramer.LineTooLong(limit: 1_000)) {
            _ = try framer.append(chunk)
        }
        // A long line that ends in time is fine, and the framer goes on.
        var other = LineFramer(maximumLength: 1_000)
        #expect(try other.append(chunk + [UInt8(ascii: "\n")] + chunk).count == 1)
        #expect(other.pendingCount == 100)
    }
}
