/// An event line encoded once for every client, with its `seq` left as an explicit slot
/// that each connection fills with its own number when it sends the line.
public struct EventLine: Sendable {
    /// The line without the `seq` digits.
    private let bytes: [UInt8]
    /// Where the `seq` digits go in `bytes`.
    private let slot: Int
    /// The input time of a gesture or touch line (nil for a device line): what the daemon's
    /// delivery latency is measured from.
    public let inputTime: Timestamp?

    /// A gesture line (`message.seq` is not written: the slot is).
    public init(_ message: GestureMessage) {
        self.init(GestureMessage.Line(message), inputTime: message.time)
    }

    /// A touch line (`message.seq` is not written: the slot is).
    public init(_ message: TouchMessage) {
        self.init(message, inputTime: message.time)
    }

    /// A device line (`message.seq` is not written: the slot is).
    public init(_ message: DeviceMessage) {
        self.init(message, inputTime: nil)
    }

    /// An activity line (`message.seq` is not written: the slot is).
    public init(_ message: ActivityMessage) {
        self.init(message, inputTime: nil)
    }

    private init<Message: WireMessage>(_ message: Message, inputTime: Timestamp?) {
        self.inputTime = inputTime
        (bytes, slot) = WireEncoder.exactLine(message, seq: .slot)
    }

    /// Appends the line with `seq` in its slot.
    public func append(seq: UInt64, to line: inout [UInt8]) {
        // Rebased buffers, not slices: appended by one copy each (a slice went element by
        // element), for every client a line is written to.
        bytes.withUnsafeBufferPointer { encoded in
            line.append(contentsOf: UnsafeBufferPointer(rebasing: encoded[..<slot]))
            JSONWriter.append(to: &line, bound: JSONWriter.numberLength) { $0.unsigned(seq) }
            line.append(contentsOf: UnsafeBufferPointer(rebasing: encoded[slot...]))
        }
    }

    /// The most bytes `append` adds (a `seq` has at most 20 digits).
    public var byteCount: Int { bytes.count + 20 }
}
