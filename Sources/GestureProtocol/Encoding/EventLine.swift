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
        self.init(inputTime: message.time) { WireEncoder.writeGesture(message, seq: .slot, to: &$0) }
    }

    /// A touch line (`message.seq` is not written: the slot is).
    public init(_ message: TouchMessage) {
        self.init(inputTime: message.time) { WireEncoder.writeTouch(message, seq: .slot, to: &$0) }
    }

    /// A device line (`message.seq` is not written: the slot is).
    public init(_ message: DeviceMessage) {
        self.init(inputTime: nil) { WireEncoder.writeDevice(message, seq: .slot, to: &$0) }
    }

    /// An activity line (`message.seq` is not written: the slot is).
    public init(_ message: ActivityMessage) {
        self.init(inputTime: nil) { WireEncoder.writeActivity(message, seq: .slot, to: &$0) }
    }

    private init(inputTime: Timestamp?, _ write: (inout JSONWriter) -> Int) {
        self.inputTime = inputTime
        var writer = JSONWriter(capacity: Self.typicalLength)
        slot = write(&writer)
        bytes = writer.bytes
    }

    /// Room reserved per line: a drag line of a device with a long name fits.
    private static let typicalLength = 384

    /// Appends the line with `seq` in its slot.
    public func append(seq: UInt64, to line: inout [UInt8]) {
        bytes.withUnsafeBufferPointer { encoded in
            line.append(contentsOf: encoded[..<slot])
            JSONWriter.append(to: &line) { $0.unsigned(seq) }
            line.append(contentsOf: encoded[slot...])
        }
    }

    /// The most bytes `append` adds (a `seq` has at most 20 digits).
    public var byteCount: Int { bytes.count + 20 }
}
