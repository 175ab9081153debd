/// Tells the formats apart by their first meaningful line (never by the file name):
/// - `# EVEMU …`, or a line starting `N:`/`I:`/`P:`/`B:`/`A:`/`E:` → evemu;
/// - `Input driver version`, `Input device ID:`, `Input device name:`, `Event: time` → evtest;
/// - `[ seconds.micros]`, `/dev/input/…`, `add device`, `could not get driver` → getevent;
/// - a top-level YAML key `version:`, `ndevices:`, `libinput:`, `system:`, `devices:` →
///   libinput record.
/// Other `#` comment lines and blank lines are skipped while looking. Empty input, NUL bytes
/// (binary data) or a first line matching nothing are errors.
enum FormatDetector {
    static func detect(_ bytes: UnsafeBufferPointer<UInt8>, _ source: Source) throws(RecordingError) -> RecordingFormat {
        guard !bytes.isEmpty else { throw source.error(nil, "file is empty") }
        var sawContent = false
        var format: RecordingFormat?
        for line in LineSplitter(bytes) {
            var cursor = Cursor(bytes, line)
            for index in line.start..<line.end where bytes[index] == 0 {
                throw source.error(line.number, "binary data (NUL byte at column \(index - line.start + 1)), not a text recording")
            }
            if format != nil { continue }
            cursor.skipSpaces()
            guard !cursor.atEnd else { continue }
            sawContent = true
            if cursor.startsWith("# EVEMU") {
                format = .evemu
            } else if cursor.peek == UInt8(ascii: "#") {
                continue
            } else if let detected = classify(cursor) {
                format = detected
            } else {
                throw source.error(
                    line.number,
                    "unrecognised format: expected evemu, libinput record, evtest or getevent text, got \(quoted(cursor.rest))")
            }
        }
        guard let format else {
            throw source.error(nil, sawContent ? "only comments, no device description or events" : "file is empty")
        }
        return format
    }

    private static func classify(_ cursor: Cursor) -> RecordingFormat? {
        for prefix: StaticString in ["N:", "I:", "P:", "B:", "A:", "E:"] where cursor.startsWith(prefix) {
            return .evemu
        }
        for prefix: StaticString in ["Input driver version", "Input device ID:", "Input device name:", "Event: time"]
        where cursor.startsWith(prefix) {
            return .evtest
        }
        for prefix: StaticString in ["[", "/dev/input/", "add device", "could not get driver"] where cursor.startsWith(prefix) {
            return .getevent
        }
        for prefix: StaticString in ["version:", "ndevices:", "libinput:", "system:", "devices:"] where cursor.startsWith(prefix) {
            return .libinputRecord
        }
        return nil
    }
}
