import Foundation
import GestureCore
import GestureTestSupport
import Glibc
import Logging
import SystemCalls
import Testing

@testable import Systemd

/// The daemon's log records as it writes them to stderr and journald, in process.
@Suite struct LoggingTests {
    @Test func journalStreamMustNameStderrItself() {
        #expect(JournalLogHandler.isJournal(stream: "8:1234", device: 8, inode: 1234))
        #expect(!JournalLogHandler.isJournal(stream: nil, device: 8, inode: 1234))
        #expect(!JournalLogHandler.isJournal(stream: "8:1235", device: 8, inode: 1234), "inherited by a child whose stderr is elsewhere")
        #expect(!JournalLogHandler.isJournal(stream: "9:1234", device: 8, inode: 1234))
        for malformed in ["", ":", "8", "8:", ":1234", "8:1234:5", "x:1234", "-8:1234", "8:12a"] {
            #expect(!JournalLogHandler.isJournal(stream: malformed, device: 8, inode: 1234), "\(malformed)")
        }
    }

    /// A record's journal fields: MESSAGE with the metadata in it, the syslog priority, the
    /// program, the logger, the logging call's location and each metadata key as a field.
    /// (That libsystemd delivers them to journald: ProgramTests' ServiceTests, through a
    /// journal socket of the test's own, and the systemd VM tier through the real journald.)
    @Test func journalRecordFields() throws {
        var handler = JournalLogHandler(label: "gestured.test", level: .debug)
        handler[metadataKey: "device"] = "ELAN Touchscreen"
        let event = LogEvent(
            level: .warning, message: "device lost", metadata: ["client-id": "7"], source: nil, file: "Daemon/Daemon.swift",
            function: "remove(_:)", line: 42)
        let fields = handler.fields(of: event)
        #expect(
            fields.map(\.name).prefix(7) == ["MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "LOGGER", "CODE_FILE", "CODE_LINE", "CODE_FUNC"])
        let values = Dictionary(fields, uniquingKeysWith: { first, _ in first })
        #expect(values["MESSAGE"] == "device lost client-id=7 device=\"ELAN Touchscreen\"")
        #expect(values["PRIORITY"] == "4")
        #expect(values["SYSLOG_IDENTIFIER"] == JournalLogHandler.programName)
        #expect(values["LOGGER"] == "gestured.test")
        #expect(values["CODE_FILE"] == "Daemon/Daemon.swift" && values["CODE_LINE"] == "42" && values["CODE_FUNC"] == "remove(_:)")
        #expect(values["DEVICE"] == "ELAN Touchscreen")
        #expect(values["CLIENT_ID"] == "7")
        #expect(fields.count == 9)
    }

    /// Records are identified by the program that wrote them, as sd_journal_send identifies
    /// them: the bridge's were all `gestured` (a constant) before, so `journalctl -t
    /// gestured-web` found nothing.
    @Test func recordsAreIdentifiedByTheProgramsName() {
        #expect(JournalLogHandler.shortName(ofProgram: "/usr/bin/gestured-web") == "gestured-web")
        #expect(JournalLogHandler.shortName(ofProgram: "gestured") == "gestured")
        #expect(JournalLogHandler.shortName(ofProgram: "") == "gestured")
        #expect(JournalLogHandler.programName == JournalLogHandler.shortName(ofProgram: CommandLine.arguments[0]))
        #expect(JournalLogHandler.programName != "gestured")  // the test runner's own name
    }

    @Test func stderrLinesNameTheLevelAndSortTheMetadata() {
        let line = StderrLogHandler.format(level: .notice, message: "refusing client", metadata: ["uid": "1000", "limit": "64"])
        #expect(line == "gestured: notice: refusing client limit=64 uid=1000\n")
    }

    /// The journal shows only MESSAGE by default: the device name and the reason must be in
    /// it, one unambiguous record even when a value has spaces or quotes.
    @Test func recordTextCarriesQuotedMetadata() {
        let text = LogRecord.text(
            message: "reload failed, keeping the previous configuration",
            metadata: ["error": "gestured.toml:3: unknown key 'x'", "device": "ELAN Touchscreen", "empty": ""])
        #expect(
            text
                == #"reload failed, keeping the previous configuration device="ELAN Touchscreen" empty="" error="gestured.toml:3: unknown key 'x'""#
        )
        #expect(LogRecord.text(message: "m", metadata: ["say": #"a "b" c\d"#]) == #"m say="a \"b\" c\\d""#)
    }

    /// Bytes a client or a file chose (ESC, NUL, newlines) are escaped in every log record:
    /// no terminal escape reaches an operator's screen and no record forges another.
    @Test func logRecordsEscapeControlCharacters() {
        let text = LogRecord.text(
            message: "bad request\u{1B}[2J",
            metadata: ["error": "unknown request type \"\u{1B}[31mx\ngestured: critical: forged\u{0}\u{9B}\""])
        // Inside a quoted value a backslash is doubled (LogRecord's quoting), escapes included.
        #expect(text == #"bad request\u{1B}[2J error="unknown request type \"\\u{1B}[31mx\\ngestured: critical: forged\\u{0}\\u{9B}\"""#)
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(DisplayText.escaped("tab\there\r\\ é ✓") == #"tab\there\r\ é ✓"#)
    }
}
