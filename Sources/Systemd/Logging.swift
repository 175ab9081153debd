import CSystemd
import GestureCore
import Glibc
import Logging
import SystemCalls
import SystemPackage

/// Sends log records to the systemd journal with structured fields through libsystemd's
/// `sd_journal_sendv`: `MESSAGE`, `PRIORITY`, `SYSLOG_IDENTIFIER` (the program's name:
/// `journalctl -t gestured-web` finds the bridge's records), `LOGGER`, `CODE_FILE`,
/// `CODE_LINE`, `CODE_FUNC` (the logging call's) and each metadata key upper-cased (`client`
/// → `CLIENT`).
public struct JournalLogHandler: MetadataHolding {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String

    public init(label: String, level: Logger.Level) {
        self.label = label
        logLevel = level
    }

    public func log(event: LogEvent) {
        // Best effort, as every caller of sd_journal_sendv: a record journald cannot take has
        // nowhere else to go.
        _ = JournalLogHandler.send(fields(of: event))
    }

    /// The journal fields of one record, in the order they are sent.
    func fields(of event: LogEvent) -> [(name: String, value: String)] {
        let merged = mergedMetadata(event.metadata)
        // MESSAGE carries the metadata too: `journalctl -u gestured` shows only MESSAGE, and an
        // operator must see which device and why without `-o verbose`.
        var fields = [
            ("MESSAGE", LogRecord.text(message: event.message, metadata: merged)),
            ("PRIORITY", "\(JournalLogHandler.priority(event.level))"),
            ("SYSLOG_IDENTIFIER", JournalLogHandler.programName),
            ("LOGGER", label),
            ("CODE_FILE", event.file),
            ("CODE_LINE", "\(event.line)"),
            ("CODE_FUNC", event.function),
        ]
        for (key, value) in merged {
            fields.append((JournalLogHandler.fieldName(key), DisplayText.escaped("\(value)")))
        }
        return fields
    }

    /// Sends one record (`NAME=value` per field; a value may hold newlines, libsystemd encodes
    /// it) with `sd_journal_sendv`; returns its result: 0, or a negative errno.
    static func send(_ fields: [(name: String, value: String)]) -> Int32 {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for (name, value) in fields {
            let start = bytes.count
            bytes.append(contentsOf: name.utf8)
            bytes.append(UInt8(ascii: "="))
            bytes.append(contentsOf: value.utf8)
            ranges.append(start..<bytes.count)
        }
        return bytes.withUnsafeMutableBytes { buffer in
            let vectors = ranges.map { range in iovec(iov_base: buffer.baseAddress! + range.lowerBound, iov_len: range.count) }
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
    }

    /// The running program's name (`gestured`, `gestured-web`), sent as `SYSLOG_IDENTIFIER`
    /// as syslog(3) sends it (glibc's `program_invocation_short_name`): `sd_journal_sendv`
    /// sends only the fields it is given.
    static let programName = shortName(ofProgram: CommandLine.arguments.first ?? "")

    /// The last path component of `argv[0]`; "gestured" when there is none.
    static func shortName(ofProgram path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        return name.isEmpty ? "gestured" : name
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
        guard let stderr = StandardStream.error.identity() else { return false }
        return isJournal(stream: Environment.value("JOURNAL_STREAM"), device: stderr.device, inode: stderr.inode)
    }

    /// Whether a `JOURNAL_STREAM` value (`DEVICE:INODE`, decimal) names the file with this
    /// device and inode: systemd sets it for a service whose stderr is the journal, and a
    /// child that inherits the variable but not the descriptor must not believe it.
    public static func isJournal(stream: String?, device: UInt64, inode: UInt64) -> Bool {
        guard let stream else { return false }
        let parts = stream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let streamDevice = UInt64(parts[0]), let streamInode = UInt64(parts[1]) else { return false }
        return streamDevice == device && streamInode == inode
    }
}

/// One line per record on stderr: `LEVEL message key=value …`.
public struct StderrLogHandler: MetadataHolding {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]

    public init(level: Logger.Level) {
        logLevel = level
    }

    public func log(event: LogEvent) {
        let merged = mergedMetadata(event.metadata)
        // Best effort: a log line that cannot be written has nowhere else to go.
        try? StandardStream.error.write(StderrLogHandler.format(level: event.level, message: event.message, metadata: merged))
    }
}

extension StderrLogHandler {
    /// One record as a line: `gestured: LEVEL: message key=value …` (keys sorted), ending in `\n`.
    public static func format(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata) -> String {
        "gestured: \(level): \(LogRecord.text(message: message, metadata: metadata))\n"
    }
}

/// The text of one log record, the same on stderr and in the journal's MESSAGE.
public enum LogRecord {
    /// `message key=value …`, keys sorted; a value with spaces, quotes or `=` is quoted
    /// (`device="ELAN Touchscreen"`), so the line stays one unambiguous record.
    /// Control characters (from a client's request, a device name, a file) are escaped:
    /// no record can span lines or carry terminal escapes.
    public static func text(message: Logger.Message, metadata: Logger.Metadata) -> String {
        var text = DisplayText.escaped("\(message)")
        for key in metadata.keys.sorted() {
            text += " \(DisplayText.escaped(key))=\(quotedIfNeeded(DisplayText.escaped("\(metadata[key]!)")))"
        }
        return text
    }

    static func quotedIfNeeded(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) else { return value }
        var quoted = "\""
        for character in value {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }
}

/// What both handlers share: their own metadata, under which a record's own is merged.
public protocol MetadataHolding: LogHandler {
    /// The handler's metadata (`logger[metadataKey:]` reads and writes it).
    var metadata: Logger.Metadata { get set }
}

extension MetadataHolding {
    /// One key of the handler's metadata.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The handler's metadata with a record's over it (the record's wins).
    func mergedMetadata(_ record: Logger.Metadata?) -> Logger.Metadata {
        metadata.merging(record ?? [:], uniquingKeysWith: { $1 })
    }
}

/// Chooses the journal when stderr is the journal, else stderr.
public func makeLogHandler(label: String, level: Logger.Level) -> LogHandler {
    JournalLogHandler.stderrIsJournal ? JournalLogHandler(label: label, level: level) : StderrLogHandler(level: level)
}
