import GestureCore

/// A sink that keeps every event in an array, numbering gestures from 1.
public struct CollectingSink: GestureSink {
    public var events: [GestureEvent] = []
    public var lastID: UInt64 = 0

    public init() {}

    public mutating func nextGestureID() -> UInt64 {
        lastID += 1
        return lastID
    }

    public mutating func emit(_ event: GestureEvent) {
        events.append(event)
    }
}
