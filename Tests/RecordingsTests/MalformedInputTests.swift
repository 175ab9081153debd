import Foundation
import GestureCore
import Glibc
import Recordings
import Testing

/// Bad input gives a RecordingError naming the file, the line and the problem.
@Suite("Malformed input")
struct MalformedInputTests {
    /// A fresh folder for files that must exist on disk (sibling lookup, directories).
    static func scratchDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("recordings-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func expectError(_ text: String, path: String = "bad.events", line: Int?, _ message: String) {
        #expect(throws: RecordingError(path: path, line: line, message: message)) {
            try RecordingReader.parse(text: text, path: path)
        }
    }

    @Test("the message reads PATH:LINE: message, or PATH: message")
    func description() {
        #expect(RecordingError(path: "a.events", line: 3, message: "boom").description == "a.events:3: boom")
        #expect(RecordingError(path: "a.events", message: "boom").description == "a.events: boom")
    }

    @Test("empty and blank files")
    func empty() {
        Self.expectError("", line: nil, "file is empty")
        Self.expectError("\n\n  \n", line: nil, "file is empty")
        Self.expectError("# just a comment\n", line: nil, "only comments, no device description or events")
    }

    @Test("binary garbage")
    func binary() {
        let garbage = String(decoding: [0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x00, 0x0a, 0x01], as: UTF8.self)
        Self.expectError(garbage, line: 1, "binary data (NUL byte at column 7), not a text recording")
        Self.expectError(
            "hello world\n", line: 1, "unrecognised format: expected evemu, libinput record, evtest or getevent text, got 'hello world'")
    }

    @Test("evemu: truncated and non-numeric event lines")
    func evemuTruncated() {
        let header = "N: Test\nA: 35 0 100 0 0 0\n"
        Self.expectError(header + "E: 1.000000 0003\n", line: 3, "E: needs a hexadecimal type and code after the time, got ''")
        Self.expectError(header + "E: 1.000000 0003 0035 abc\n", line: 3, "E: needs a decimal 32-bit value after the code, got 'abc'")
        Self.expectError(header + "E: 1.0000", line: 3, "E: needs a hexadecimal type and code after the time, got ''")
        Self.expectError(header + "E: x.5 0003 0035 1\n", line: 3, "E: needs a timestamp 'seconds.microseconds', got 'x.5 0003 0035 1'")
        Self.expectError(
            header + "E: 1.5 0003 0035 99999999999\n", line: 3, "E: needs a decimal 32-bit value after the code, got '99999999999'")
        Self.expectError(header + "E: 1.5 0003 0035 1 2\n", line: 3, "unexpected text after the fields: '2'")
        Self.expectError("N: Test\nA: 35 0 x 0 0\n", line: 2, "A: values must be decimal 32-bit integers, got 'x 0 0'")
        Self.expectError("N: Test\nZ: 1\n", line: 2, "unrecognised evemu line 'Z: 1' (expected N:, I:, P:, B:, A: or E:)")
    }

    @Test("evemu: events before any description, no sibling, no --device")
    func evemuWithoutDescription() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/Lonely.tap.events"
        try "# recorded\nE: 1.000000 0003 0035 10\nE: 1.000000 0000 0000 0\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(
            throws: RecordingError(
                path: path, line: 2,
                message:
                    "event before any device description: no N:/I:/B:/A: header, no sibling .desc/.prop/.device file, and no --device given"
            )
        ) {
            try RecordingReader.read(path: path)
        }
        // A sibling description makes the same file readable; a broken one names itself.
        try "N: Lonely\nA: 35 0 100 0 0 0\n".write(toFile: directory + "/Lonely.desc", atomically: true, encoding: .utf8)
        #expect(try RecordingReader.read(path: path).first?.device.name == "Lonely")
        try "N: Lonely\nA: 35 zero\n".write(toFile: directory + "/Lonely.desc", atomically: true, encoding: .utf8)
        #expect(
            throws: RecordingError(
                path: directory + "/Lonely.desc", line: 2, message: "A: values must be decimal 32-bit integers, got 'zero'")
        ) {
            try RecordingReader.read(path: path)
        }
    }

    @Test("missing file, directory, missing --device")
    func fileSystem() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: RecordingError(path: directory + "/nope.events", message: "no such file")) {
            try RecordingReader.read(path: directory + "/nope.events")
        }
        #expect(throws: RecordingError(path: directory, message: "is a directory, not a recording")) {
            try RecordingReader.read(path: directory)
        }
        let path = directory + "/ok.events"
        try "N: X\nA: 35 0 9 0 0\nE: 0.1 0000 0000 0\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: RecordingError(path: directory + "/none.desc", message: "no such file")) {
            try RecordingReader.read(path: path, devicePath: directory + "/none.desc")
        }
        #expect(throws: RecordingError(path: directory + "/empty.desc", message: "file is empty")) {
            try "".write(toFile: directory + "/empty.desc", atomically: true, encoding: .utf8)
            return try RecordingReader.read(path: path, devicePath: directory + "/empty.desc")
        }
    }

    /// Parser errors quote the file: its control bytes come out escaped, not raw (a
    /// recording could otherwise clear the terminal of whoever replays it).
    @Test("control bytes in quoted input are escaped")
    func controlBytesAreEscaped() {
        do {
            _ = try RecordingReader.parse(text: "N: X\nA: 35 \u{1B}[2J\u{7}\n", path: "evil\u{1B}.events")
            Issue.record("parsed")
        } catch {
            #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(error.description)")
            #expect(error.description.contains(#"\u{1B}[2J"#), "\(error.description)")
        }
    }

    /// A symlink loop was reported as "no such file"; a FIFO must be refused without
    /// waiting for a writer, and a device without reading it.
    @Test("symlink loop, FIFO, device")
    func notARegularFile() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loop = directory + "/loop.events"
        #expect(symlink(loop, loop) == 0)
        #expect(throws: RecordingError(path: loop, message: "too many levels of symbolic links (a symlink loop?)")) {
            try RecordingReader.read(path: loop)
        }
        let fifo = directory + "/fifo.events"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: RecordingError(path: fifo, message: "is a FIFO (named pipe), not a recording")) {
            try RecordingReader.read(path: fifo)
        }
        #expect(throws: RecordingError(path: "/dev/zero", message: "is a device, not a recording")) {
            try RecordingReader.read(path: "/dev/zero")
        }
    }

    @Test("evtest: truncated event line and non-numeric value")
    func evtest() {
        let header =
            "Input device name: \"pad\"\nSupported events:\n  Event type 3 (EV_ABS)\n    Event code 53 (ABS_MT_POSITION_X)\n      Min 0\n      Max 100\n"
        let good = "Event: time 10.000001, type 3 (EV_ABS), code 53 (ABS_MT_POSITION_X), value 5\n"
        Self.expectError(
            header + good + "Event: time 10.0000", path: "x.dat", line: 8, "truncated event line: expected ', type …' after the time")
        Self.expectError(
            header + good + "Event: time 10.2, type 3 (EV_ABS), code 53 (ABS_MT_POSITION_X), value five\n", path: "x.dat", line: 8,
            "event value must be a decimal 32-bit integer, got 'five'")
        Self.expectError(
            header + good + "Event: time 10.2, type 3 (EV_ABS), code 53 (ABS_MT_POS", path: "x.dat", line: 8,
            "malformed or truncated event: expected 'type T (EV_…), code C (…), value V', got ''")
        Self.expectError(header + good + "garbage\n", path: "x.dat", line: 8, "expected an 'Event: time …' line, got 'garbage'")
        Self.expectError(
            header + "Event: time 1.0, ~~~~ SYN_WHATEVER ~~~~\n", path: "x.dat", line: 7,
            "unrecognised event '~~~~ SYN_WHATEVER ~~~~': expected 'type …' or a SYN_* marker")
    }

    @Test("evtest: SYN_MT_REPORT and SYN_DROPPED markers")
    func evtestMarkers() throws {
        let text = """
            Input device name: "pad"
            Supported events:
              Event type 3 (EV_ABS)
                Event code 53 (ABS_MT_POSITION_X)
                  Min 0
                  Max 100
            Event: time 1.000001, ++++++++++++++ SYN_MT_REPORT ++++++++++++
            Event: time 1.000002, >>>>>>>>>>>>>> SYN_DROPPED <<<<<<<<<<<<
            Event: time 1.000003, -------------- SYN_REPORT ------------
            """
        let events = try RecordingReader.parse(text: text, path: "m.dat")[0].events
        #expect(events.map(\.code) == [SYN.mtReport, SYN.dropped, SYN.report])
        #expect(events.map(\.time) == [1_000_001, 1_000_002, 1_000_003])
    }

    @Test("getevent: unknown type is an error, unknown code name is skipped, bad value is an error")
    func getevent() throws {
        Self.expectError("[ 1.000000] EV_BOGUS ABS_X 00000001\n", path: "g.txt", line: 1, "unknown event type 'EV_BOGUS'")
        Self.expectError(
            "[ 1.000000] EV_ABS ABS_X zz\n", path: "g.txt", line: 1,
            "event value must be up to 8 hexadecimal digits (or DOWN/UP/REPEAT), got 'zz'")
        Self.expectError(
            "[ 1.000000] EV_ABS ABS_X\n", path: "g.txt", line: 1, "truncated or malformed event: expected 'TYPE CODE VALUE' after the time")
        Self.expectError("[ 1.00", path: "g.txt", line: 1, "malformed timestamp: expected '[ seconds.microseconds]', got ''")
        Self.expectError(
            "/dev/input/event1: EV_ABS ABS_X 00000001\n", path: "g.txt", line: 1,
            "event without a timestamp (record with 'getevent -lt'): 'EV_ABS ABS_X 00000001'")
        let text = """
            add device 1: /dev/input/event1
              name:     "sec_touchscreen"
            could not get driver version for /dev/input/mouse0, Not a typewriter
            [   10.000001] /dev/input/event1: EV_ABS       ABS_MT_FUTURE_AXIS   00000005
            [   10.000002] /dev/input/event1: EV_ABS       ABS_MT_POSITION_X    00000010
            [   10.000003] /dev/input/event1: 0003         0036                 00000020
            [   10.000004] /dev/input/event2: EV_KEY       KEY_VOLUMEDOWN       DOWN
            [   10.000005] /dev/input/event1: EV_SYN       SYN_REPORT           00000000
            """
        let recordings = try RecordingReader.parse(text: text, path: "g.txt")
        try #require(recordings.count == 2)
        #expect(recordings[0].device.name == "sec_touchscreen")
        #expect(recordings[0].events.map(\.code) == [ABS.mtPositionX, ABS.mtPositionY, SYN.report])
        #expect(recordings[0].notes.first == "skipped events with unknown code names: ABS_MT_FUTURE_AXIS ×1")
        #expect(recordings[1].device.name == "/dev/input/event2")
        #expect(recordings[1].events == [InputEvent(time: 10_000_004, type: EV.key, code: 114, value: 1)])
    }

    @Test("time going backwards is kept in recorded order")
    func backwardsTime() throws {
        let text = "N: T\nA: 35 0 100 0 0 0\nE: 2.000000 0003 0035 1\nE: 1.000000 0000 0000 0\nE: 3.5 0000 0000 0\n"
        let recording = try RecordingReader.parse(text: text, path: "t.events")[0]
        #expect(recording.events.map(\.time) == [2_000_000, 1_000_000, 3_500_000])
        #expect(recording.summary.backwardSteps == 1)
        #expect(recording.summary.duration == .microseconds(2_500_000))
    }

    @Test("--device text that describes nothing is an error naming it")
    func deviceTextWithoutDescription() {
        #expect(throws: RecordingError(path: "t.events (--device)", message: "no device description in this getevent file")) {
            try RecordingReader.parse(text: "N: T\nA: 35 0 1 0 0\n", path: "t.events", deviceText: "[ 1.0] EV_SYN SYN_REPORT 00000000\n")
        }
    }

    @Test("CRLF line endings are accepted")
    func crlf() throws {
        let recording = try RecordingReader.parse(text: "N: T\r\nA: 35 0 100 0 0 0\r\nE: 1.000001 0003 0035 7\r\n", path: "c.events")[0]
        #expect(recording.events == [InputEvent(time: 1_000_001, type: EV.abs, code: ABS.mtPositionX, value: 7)])
    }
}
