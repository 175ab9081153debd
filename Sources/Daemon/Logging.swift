import CSystemd
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Sends log records to the systemd journal with structured fields: `MESSAGE`,
/// `PRIORITY`, `SYSLOG_IDENTIFIER`, `LOGGER`, and each metadata key upper-cased
/// (`client` → `CLIENT`).
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String

    public init(label: String, level: Logger.Level) {
        self.label = label
        logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
        var fields = [
            "MESSAGE=\(message)",
            "PRIORITY=\(JournalLogHandler.priority(level))",
            "SYSLOG_IDENTIFIER=gestured",
            "LOGGER=\(label)",
            "CODE_FILE=\(file)",
            "CODE_LINE=\(line)",
            "CODE_FUNC=\(function)",
        ]
        for (key, value) in metadata.merging(explicit ?? [:], uniquingKeysWith: { $1 }) {
            fields.append("\(JournalLogHandler.fieldName(key))=\(value)")
        }
        let cStrings = fields.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        var vectors = cStrings.map { iovec(iov_base: UnsafeMutableRawPointer($0), iov_len: strlen($0!)) }
        _ = sd_journal_sendv(&vectors, Int32(vectors.count))
    }

    /// syslog priorities.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// Journal field names: upper-case letters, digits and underscores, not starting with `_`.
    static func fieldName(_ key: String) -> String {
        var name = String(key.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
        while name.hasPrefix("_") { name.removeFirst() }
        return name.isEmpty ? "METADATA" : name
    }

    /// Whether stderr is connected to the journal (`JOURNAL_STREAM` names its device:inode).
    public static var stderrIsJournal: Bool {
        guard let stream = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = stream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}

/// One line per record on stderr: `LEVEL message key=value …`.
public struct StderrLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]

    public init(level: Logger.Level) {
        logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
        var text = "gestured: \(level): \(message)"
        let all = metadata.merging(explicit ?? [:], uniquingKeysWith: { $1 })
        for key in all.keys.sorted() {
            text += " \(key)=\(all[key]!)"
        }
        text += "\n"
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

/// Chooses the journal when stderr is the journal, else stderr.
public func makeLogHandler(label: String, level: Logger.Level) -> LogHandler {
    JournalLogHandler.stderrIsJournal ? JournalLogHandler(label: label, level: level) : StderrLogHandler(level: level)
}
