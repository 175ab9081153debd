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

    /// A record reaches journald as one native-protocol datagram with its fields (read here
    /// from a socket of the test's own, as journald reads its own).
    @Test func journalRecordsAreNativeProtocolDatagrams() throws {
        let directory = TemporaryDirectory()
        let journal = try NotifySocket(path: directory.file("journal"))
        var logger = Logger(label: "gestured.test") { label in
            JournalLogHandler(label: label, level: .debug, socket: try! UnixSocketAddress(journal.path), identifier: "gestured-web")
        }
        logger[metadataKey: "device"] = "ELAN Touchscreen"
        logger.warning("device lost", metadata: ["client-id": "7"])
        let datagram = try #require(journal.next())
        let fields = Dictionary(
            datagram.split(separator: "\n").map { line in
                let parts = line.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            }, uniquingKeysWith: { first, _ in first })
        #expect(fields["MESSAGE"] == "device lost client-id=7 device=\"ELAN Touchscreen\"")
        #expect(fields["PRIORITY"] == "4")
        #expect(fields["SYSLOG_IDENTIFIER"] == "gestured-web")
        #expect(fields["LOGGER"] == "gestured.test")
        #expect(fields["DEVICE"] == "ELAN Touchscreen")
        #expect(fields["CLIENT_ID"] == "7")
        #expect(fields["CODE_LINE"].flatMap { Int($0) } != nil)
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

    /// A value with a newline is written in the protocol's binary form (name, newline,
    /// little-endian 64-bit length, value, newline); others as `NAME=value`; values are cut
    /// so that a record always fits one datagram.
    @Test func journalEntryEncoding() {
        let bytes = JournalEntry.datagram([("MESSAGE", "two\nlines"), ("PRIORITY", "6")])
        let expected: [UInt8] = Array("MESSAGE\n".utf8) + [9, 0, 0, 0, 0, 0, 0, 0] + Array("two\nlines\nPRIORITY=6\n".utf8)
        #expect(bytes == expected)
        let long = JournalEntry.datagram([("MESSAGE", String(repeating: "x", count: 100_000))])
        #expect(long.count == "MESSAGE=".utf8.count + JournalEntry.maximumValueBytes + 1)
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
