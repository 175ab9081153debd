@testable import Daemon
import GestureCore
import GestureProtocol
import GestureTestSupport
import Glibc

/// A broken promise: stops the run (libFuzzer saves the input that did it as a crash).
public func violation(_ message: String) -> Never {
    fatalError("violation: " + message)
}

/// Text printed or logged from untrusted input must carry no control characters.
public func requireDisplaySafe(_ text: String, _ what: String) {
    if text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
        violation("\(what) carries a raw control character: \(text.debugDescription)")
    }
}

/// Receives a pipeline's gestures and checks each against the protocol's promises
/// (`GestureStreamValidator`) and its wire line against the protocol's strict decoder.
public struct CheckedSink: GestureSink {
    public private(set) var validator: GestureStreamValidator
    public private(set) var count = 0
    private var lastID: UInt64 = 0
    private var line: [UInt8] = []

    /// `configuration`: which promises apply (every touch has a press only when the top
    /// level and every region that keeps its touches report presses).
    /// `trace`: print every gesture line to standard error (to study a finding).
    public init(_ configuration: EngineConfiguration = EngineConfiguration(), trace: Bool = false) {
        let everyTouchPresses = configuration.defaults.enabled.contains(.press)
            && configuration.regions.allSatisfy { $0.fallThrough || $0.settings.enabled.contains(.press) }
        validator = GestureStreamValidator(requirePress: everyTouchPresses)
        tracing = trace
    }

    private let tracing: Bool

    public mutating func nextGestureID() -> UInt64 {
        lastID += 1
        return lastID
    }

    public mutating func emit(_ event: GestureEvent) {
        count += 1
        validator.check(event)
        line.removeAll(keepingCapacity: true)
        WireEncoder.append(.gesture(GestureMessage(event, device: "fuzz", seq: UInt64(count))), to: &line)
        if tracing { traceLine("gesture: " + String(decoding: line.dropLast(), as: UTF8.self)) }
        requireMessageLine(line, "gesture line")
    }

    /// Contacts whose `touch` lines began, and those that ended or were cancelled.
    private var begunContacts: Set<UInt32> = []
    private var finishedContacts: Set<UInt32> = []

    /// Every touch of a frame encodes to a valid line too, and each contact's lines run
    /// `began` (or a zero-duration `ended`), `moved`…, then one `ended` or `cancelled`, and
    /// nothing after it (touch hygiene must never show the rest of a touch it dropped or
    /// ended).
    public mutating func touches(_ frame: TouchFrame) {
        for contact in frame.contacts {
            if finishedContacts.contains(contact.id) { violation("touch line for contact \(contact.id) after it ended") }
            switch contact.phase {
            case .began:
                if !begunContacts.insert(contact.id).inserted { violation("contact \(contact.id) began twice") }
            case .moved:
                if !begunContacts.contains(contact.id) { violation("contact \(contact.id) moved before it began") }
            case .ended, .cancelled:
                finishedContacts.insert(contact.id)
            }
            line.removeAll(keepingCapacity: true)
            WireEncoder.append(.touch(TouchMessage(contact, time: frame.time, device: "fuzz", seq: 1)), to: &line)
            requireMessageLine(line, "touch line")
        }
    }

    /// Declares the stream over: every gesture must have ended, no promise broken.
    public mutating func finish() {
        validator.finish()
        let violations = validator.violations.filter { violation in !knownFindings.contains { violation.message.contains($0) } }
        if let first = violations.first {
            violation("\(first) (\(violations.count) in all)")
        }
    }
}

/// Violations already reported and not fixed yet, set aside so that fuzzing can go on
/// looking for others: `FUZZ_KNOWN="text|other text"` (parts of their messages).
/// scripts/fuzz.sh sets it from `Fuzz/Findings/*/known`.
let knownFindings: [String] = getenv("FUZZ_KNOWN").map { String(cString: $0).split(separator: "|").map(String.init) } ?? []

/// One line on standard error (studying a finding).
public func traceLine(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// A wire line: one message the protocol's strict decoder reads back, then a newline.
public func requireMessageLine(_ bytes: [UInt8], _ what: String) {
    guard bytes.last == UInt8(ascii: "\n") else {
        violation("\(what) does not end with a newline: \(String(decoding: bytes, as: UTF8.self))")
    }
    do {
        _ = try WireDecoder.message(bytes.dropLast())
    } catch {
        violation("\(what) does not decode (\(error)): \(String(decoding: bytes, as: UTF8.self))")
    }
}

/// Reads fixed-size fields from the front of the input; missing bytes read as zero.
/// (Inlinable: specialised in each harness, not a generic call per byte.)
public struct ByteReader {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    public var offset = 0

    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    public var remaining: Int { max(0, bytes.count - offset) }

    @inlinable
    public mutating func integer<T: FixedWidthInteger>(_: T.Type = T.self) -> T {
        var value: T = 0
        for index in 0..<MemoryLayout<T>.size {
            let byte = offset + index < bytes.count ? bytes[offset + index] : 0
            value |= T(truncatingIfNeeded: byte) << (8 * index)
        }
        offset += MemoryLayout<T>.size
        return value
    }

    /// A fraction 0…1 from one byte.
    @inlinable
    public mutating func fraction() -> Double {
        Double(integer(UInt8.self)) / 255
    }
}
