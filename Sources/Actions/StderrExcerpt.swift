/// What `gesturectl actions` logs of a command's standard error: its first `lineLimit`
/// lines, each cut to `lengthLimit` bytes. It holds at most `lengthLimit` bytes of an
/// unfinished line, so a command that writes without ever writing a newline cannot grow
/// gesturectl's memory; the rest of a cut line, and everything after the last logged line,
/// is read and dropped. Pure: the supervisor feeds it what it read.
public struct StderrExcerpt: Sendable {
    public let lineLimit: Int
    public let lengthLimit: Int
    /// Lines given out so far (at most `lineLimit`).
    public private(set) var lineCount = 0
    private var pending: [UInt8] = []
    /// A line was cut at `lengthLimit`: its rest is dropped up to its newline.
    private var skippingToNewline = false

    public init(lineLimit: Int, lengthLimit: Int) {
        precondition(lineLimit > 0 && lengthLimit > 0)
        self.lineLimit = lineLimit
        self.lengthLimit = lengthLimit
    }

    /// Whether every line that will be logged has been given out.
    public var isComplete: Bool { lineCount >= lineLimit }

    /// Bytes of unfinished line held now (never more than `lengthLimit`).
    public var pendingCount: Int { pending.count }

    /// Takes the next bytes of the stream; returns the lines to log that they complete
    /// (without newlines; a line reaching `lengthLimit` is given out cut, at once).
    public mutating func append(_ bytes: some Collection<UInt8>) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        for byte in bytes {
            guard !isComplete else { break }
            if byte == UInt8(ascii: "\n") {
                if !skippingToNewline { give(&lines) }
                skippingToNewline = false
            } else if !skippingToNewline {
                pending.append(byte)
                if pending.count == lengthLimit {
                    give(&lines)
                    skippingToNewline = true
                }
            }
        }
        if isComplete { pending = [] }
        return lines
    }

    /// At the end of the stream: the unfinished last line, if one is held and lines are
    /// still logged.
    public mutating func finish() -> [UInt8]? {
        guard !isComplete, !pending.isEmpty else { return nil }
        var lines: [[UInt8]] = []
        give(&lines)
        return lines.first
    }

    private mutating func give(_ lines: inout [[UInt8]]) {
        lines.append(pending)
        pending = []
        lineCount += 1
    }
}
