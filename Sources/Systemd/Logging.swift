import GestureCore
import Logging
import SystemCalls
import SystemPackage

/// Sends log records to the systemd journal with structured fields: `MESSAGE`,
/// `PRIORITY`, `SYSLOG_IDENTIFIER` (the program's name, as `sd_journal_send` sets it:
/// `journalctl -t gestured-web` finds the bridge's records), `LOGGER`, and each metadata key upper-cased
/// (`client` → `CLIENT`). Each record is one datagram of journald's native protocol
/// (`JournalEntry`) on `/run/systemd/journal/socket`, as `sd_journal_sendv` sends it, without
/// libsystemd (docs/architecture.md, "No libsystemd").
public struct JournalLogHandler: MetadataHolding {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let identifier: String
    private let socket: UnixSocketAddress

    /// journald's socket for native-protocol datagrams.
    static let socketPath = "/run/systemd/journal/socket"

    public init(label: String, level: Logger.Level) {
        self.init(label: label, level: level, socket: try! UnixSocketAddress(Self.socketPath))
    }

    /// A handler that sends to `socket` instead (the tests' own journal), its records
    /// identified as `identifier`.
    init(label: String, level: Logger.Level, socket: UnixSocketAddress, identifier: String = programName) {
        self.label = label
        self.identifier = identifier
        logLevel = level
        self.socket = socket
    }

    public func log(event: LogEvent) {
        let merged = mergedMetadata(event.metadata)
        // MESSAGE carries the metadata too: `journalctl -u gestured` shows only MESSAGE, and an
        // operator must see which device and why without `-o verbose`.
        var fields = [
            ("MESSAGE", LogRecord.text(message: event.message, metadata: merged)),
            ("PRIORITY", "\(JournalLogHandler.priority(event.level))"),
            ("SYSLOG_IDENTIFIER", identifier),
            ("LOGGER", label),
            ("CODE_FILE", event.file),
            ("CODE_LINE", "\(event.line)"),
            ("CODE_FUNC", event.function),
        ]
        for (key, value) in merged {
            fields.append((JournalLogHandler.fieldName(key), DisplayText.escaped("\(value)")))
        }
        // Best effort, as sd_journal_sendv: a record journald cannot take has nowhere else to go.
        guard let descriptor = journalDescriptor else { return }
        try? UnixSocket.sendDatagram(descriptor, JournalEntry.datagram(fields), to: socket)
    }

    /// The running program's name (`gestured`, `gestured-web`), what libsystemd's
    /// `sd_journal_send` sends as `SYSLOG_IDENTIFIER` (glibc's `program_invocation_short_name`).
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

/// The process's one socket to journald, opened on first use and kept (as sd-journal keeps
/// its own); nil when no socket could be made. Sending on it is thread-safe (gestured-web
/// logs from several threads).
private let journalDescriptor: FileDescriptor? = try? UnixSocket.make(.datagram)

/// One record in journald's native protocol (systemd's "Native Journal Protocol"): each
/// field `NAME=value\n`, or, for a value with a newline, `NAME\n`, its length as a 64-bit
/// little-endian integer, the value and `\n`. Each value is cut at `maximumValueBytes` so a
/// record always fits one datagram (sd-journal would pass a larger one in a memfd).
enum JournalEntry {
    /// 16 KiB: far above any record the daemon writes, far below a datagram's limit.
    static let maximumValueBytes = 16 * 1024

    static func datagram(_ fields: [(name: String, value: String)]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (name, value) in fields {
            let valueBytes = value.utf8.prefix(maximumValueBytes)
            bytes.append(contentsOf: name.utf8)
            if valueBytes.contains(UInt8(ascii: "\n")) {
                bytes.append(UInt8(ascii: "\n"))
                withUnsafeBytes(of: UInt64(valueBytes.count).littleEndian) { bytes.append(contentsOf: $0) }
            } else {
                bytes.append(UInt8(ascii: "="))
            }
            bytes.append(contentsOf: valueBytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
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
