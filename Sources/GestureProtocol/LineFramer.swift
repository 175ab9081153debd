/// Splits a byte stream into newline-terminated lines for a client of the daemon's socket
/// (docs/protocol.md "Transport"), bounded as the daemon bounds what it reads: a line
/// longer than `maximumLength` without its newline is an error, not a buffer that grows
/// without end. Each byte is looked at once: a read that ends in the middle of a line does
/// not make the next read search the line again from its start.
public struct LineFramer: Sendable {
    /// Longer than any line the daemon writes (a `hello` or `status` with 64 devices is a
    /// few KiB), as the web bridge's limit for the daemon's lines.
    public static let defaultMaximumLength = 1 << 20

    /// A line grew past the limit without a newline: the stream is not the daemon's.
    public struct LineTooLong: Error, Sendable, Equatable, CustomStringConvertible {
        public var limit: Int
        public init(limit: Int) { self.limit = limit }
        public var description: String { "the server sent a line longer than \(limit) bytes" }
    }

    public let maximumLength: Int
    private var buffer: [UInt8] = []
    /// Where the unfinished line starts.
    private var start = 0
    /// Bytes before this index (from `start`) hold no newline.
    private var scanned = 0

    public init(maximumLength: Int = LineFramer.defaultMaximumLength) {
        self.maximumLength = maximumLength
    }

    /// Bytes of the unfinished line held now.
    public var pendingCount: Int { buffer.count - start }

    /// Takes the next bytes of the stream; returns the lines they complete (without their
    /// newlines), or throws when the unfinished line is now longer than `maximumLength`.
    public mutating func append(_ bytes: some Collection<UInt8>) throws(LineTooLong) -> [[UInt8]] {
        buffer.append(contentsOf: bytes)
        var lines: [[UInt8]] = []
        while let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(Array(buffer[start..<newline]))
            start = newline + 1
            scanned = start
        }
        scanned = buffer.count
        guard buffer.count - start <= maximumLength else {
            throw LineTooLong(limit: maximumLength)
        }
        // Drop what was consumed once it is at least half the buffer: each byte is moved
        // at most a bounded number of times on average.
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(..<start)
            scanned -= start
            start = 0
        }
        return lines
    }
}
