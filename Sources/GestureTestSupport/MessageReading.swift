import GestureProtocol

/// Why a typed read from the daemon's socket failed: the connection closed, nothing came
/// within the wait, or the line is not a message of protocol 1 (the strict decoder's error).
public struct MessageReadFailure: Error, CustomStringConvertible {
    public var description: String
}

extension LineClient {
    /// The next line decoded with the strict decoder (`WireDecoder`): what the daemon sent,
    /// as a typed message. Throws when the connection closed, nothing came within
    /// `timeout` ms, or the line is not a valid message.
    public func readMessage(timeout: Int32 = defaultWaitMilliseconds) throws(MessageReadFailure) -> ServerMessage {
        guard let line = reader.readLine(timeout: timeout) else {
            throw MessageReadFailure(
                description: reader.lineTooLong.map { "\($0)" }
                    ?? (reader.isClosed ? "the server closed the connection" : "nothing came within \(timeout) ms"))
        }
        do {
            return try WireDecoder.message(line.bytes)
        } catch {
            throw MessageReadFailure(description: "not a protocol 1 message (\(error)): \(line.text)")
        }
    }

    /// Reads messages until one of the case `kind` selects (`\.gesture`, `\.status`, …),
    /// returning that case's value; the messages before it are skipped.
    public func readMessage<Value>(_ kind: KeyPath<ServerMessage, Value?>, timeout: Int32 = defaultWaitMilliseconds)
        throws(MessageReadFailure) -> Value
    {
        while true {
            if let value = try readMessage(timeout: timeout)[keyPath: kind] { return value }
        }
    }

    /// A ping/pong round trip: every request sent before has been handled.
    public func sync() throws {
        try send(WireEncoder.encode(ClientRequest.ping))
        _ = try readMessage(\.pong)
    }
}

/// Each case of `ServerMessage` as an optional, for tests that expect one (`message.gesture`,
/// `try client.readMessage(\.status)`).
extension ServerMessage {
    /// An event's `seq` and `time` (`gesture`, `touch`, `device` and `activity` lines); nil
    /// for replies and notices.
    public var event: (seq: UInt64, time: Timestamp)? {
        switch self {
        case .gesture(let gesture): (gesture.seq, gesture.time)
        case .touch(let touch): (touch.seq, touch.time)
        case .device(let device): (device.seq, device.time)
        case .activity(let activity): (activity.seq, activity.time)
        case .hello, .pong, .status, .metrics, .error, .overflow, .goodbye, .unknown: nil
        }
    }

    /// The message's `type` on the wire.
    public var type: String {
        switch self {
        case .hello: "hello"
        case .gesture: "gesture"
        case .touch: "touch"
        case .device: "device"
        case .activity: "activity"
        case .pong: "pong"
        case .status: "status"
        case .metrics: "metrics"
        case .error: "error"
        case .overflow: "overflow"
        case .goodbye: "goodbye"
        case .unknown(let type): type
        }
    }

    public var hello: HelloMessage? { if case .hello(let value) = self { value } else { nil } }
    public var gesture: GestureMessage? { if case .gesture(let value) = self { value } else { nil } }
    public var touch: TouchMessage? { if case .touch(let value) = self { value } else { nil } }
    public var device: DeviceMessage? { if case .device(let value) = self { value } else { nil } }
    public var activity: ActivityMessage? { if case .activity(let value) = self { value } else { nil } }
    /// A `pong`'s time.
    public var pong: Timestamp? { if case .pong(let time) = self { time } else { nil } }
    public var status: StatusMessage? { if case .status(let value) = self { value } else { nil } }
    public var metrics: MetricsMessage? { if case .metrics(let value) = self { value } else { nil } }
    /// An `error`'s message.
    public var error: String? { if case .error(let message) = self { message } else { nil } }
    /// An `overflow`'s count of dropped events.
    public var overflow: UInt64? { if case .overflow(let dropped) = self { dropped } else { nil } }
    /// A `goodbye`'s reason.
    public var goodbye: String? { if case .goodbye(let reason) = self { reason } else { nil } }
}

extension MetricsMessage {
    /// Every gesture count keyed `device|region|gesture|phase` (region `-` for none): to
    /// compare a `metrics` reply with what a subscriber received, or with what was counted.
    public var gestureCounts: [String: UInt64] {
        var result: [String: UInt64] = [:]
        for series in gestures {
            for count in series.counts {
                result["\(series.device)|\(series.region ?? "-")|\(count.gesture)|\(count.phase)"] = count.count
            }
        }
        return result
    }
}
