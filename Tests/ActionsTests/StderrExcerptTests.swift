import Actions
import Testing

/// What `gesturectl actions` keeps of a command's standard error.
@Suite struct StderrExcerptTests {
    private func text(_ lines: [[UInt8]]) -> [String] { lines.map { String(decoding: $0, as: UTF8.self) } }

    @Test func linesAcrossReadsAreGivenOutWhole() {
        var excerpt = StderrExcerpt(lineLimit: 5, lengthLimit: 512)
        #expect(text(excerpt.append(Array("fir".utf8))) == [])
        #expect(text(excerpt.append(Array("st\nsecond\nthi".utf8))) == ["first", "second"])
        #expect(excerpt.finish().map { String(decoding: $0, as: UTF8.self) } == "thi")
        #expect(excerpt.lineCount == 3)
    }

    @Test func onlyTheFirstLinesAreGivenOut() {
        var excerpt = StderrExcerpt(lineLimit: 2, lengthLimit: 512)
        #expect(text(excerpt.append(Array("a\nb\nc\nd".utf8))) == ["a", "b"])
        #expect(excerpt.isComplete)
        #expect(excerpt.pendingCount == 0)
        #expect(excerpt.finish() == nil)
    }

    /// Before StderrExcerpt, the supervisor appended every read to the unfinished line until
    /// a newline came: a command writing megabytes without one grew gesturectl by as much
    /// (this test's 4 MiB would have been held whole).
    @Test func aLineWithoutNewlineHoldsAtMostTheLengthLimit() {
        var excerpt = StderrExcerpt(lineLimit: 5, lengthLimit: 512)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
        var given: [[UInt8]] = []
        for _ in 0..<1024 {
            given += excerpt.append(chunk)
            #expect(excerpt.pendingCount < 512)
        }
        #expect(given.count == 1)
        #expect(given.first?.count == 512)
        // The rest of the cut line is dropped up to its newline; the next line is whole.
        #expect(text(excerpt.append(Array("yyy\nnext\n".utf8))) == ["next"])
        #expect(excerpt.lineCount == 2)
    }

    @Test func aLineOfExactlyTheLimitIsOneLine() {
        var excerpt = StderrExcerpt(lineLimit: 5, lengthLimit: 4)
        #expect(text(excerpt.append(Array("abcd\nef\n".utf8))) == ["abcd", "ef"])
    }
}
