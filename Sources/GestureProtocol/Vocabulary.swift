/// The names of protocol 1 (docs/protocol.md): each enum's raw values are its wire names.

/// An enum whose raw values are wire names; it prints as its wire name (`long-press`).
public protocol WireName: RawRepresentable, CustomStringConvertible where RawValue == String {}

extension WireName {
    public var description: String { rawValue }
}

/// The gestures gestured recognizes.
public enum GestureKind: String, Sendable, Hashable, CaseIterable, Comparable, WireName {
    case press
    case tap
    case longPress = "long-press"
    case drag
    case swipe
    case pinch
    case rotate

    /// In the documented order (press, tap, long-press, drag, swipe, pinch, rotate).
    public static func < (a: GestureKind, b: GestureKind) -> Bool { a.order < b.order }

    /// Its place in the documented order, 0…6.
    public var order: Int {
        switch self {
        case .press: 0
        case .tap: 1
        case .longPress: 2
        case .drag: 3
        case .swipe: 4
        case .pinch: 5
        case .rotate: 6
        }
    }
}

/// Phases as in UIKit / SwiftUI. Discrete gestures (tap, swipe) are a single `ended`.
public enum GesturePhase: String, Sendable, Hashable, CaseIterable, WireName {
    case began
    case changed
    case ended
    case cancelled
}

/// The direction of a swipe, in screen orientation.
public enum SwipeDirection: String, Sendable, Hashable, CaseIterable, WireName {
    case left, right, up, down
}

/// The screen edge a swipe started from (within the edge margin).
public enum ScreenEdge: String, Sendable, Hashable, CaseIterable, WireName {
    case left, right, top, bottom
}

/// Where a raw contact (`touch` line) is in its life, as seen in one input frame.
public enum TouchPhase: String, Sendable, Hashable, CaseIterable, WireName {
    /// The contact touched down in this frame.
    case began
    /// The contact is still down (it may or may not have moved).
    case moved
    /// The contact lifted in this frame; its location is the last one reported.
    case ended
    /// The contact stopped being a finger (palm) or its state was lost (SYN_DROPPED,
    /// device removed): every gesture it takes part in ends as `cancelled`.
    case cancelled
}

/// Whether the daemon saw no touch for its idle timeout, or the first touch after that
/// (`activity` lines).
public enum ActivityPhase: String, Sendable, Hashable, CaseIterable, WireName {
    /// No touch on any device for `[daemon] idle-timeout`.
    case idle
    /// The first touch after `idle`.
    case active
}

/// Whether a device arrived or went (`device` lines).
public enum DevicePhase: String, Sendable, Hashable, CaseIterable, WireName {
    case added, removed
}

/// An input device as `hello`, `status` and `device` lines describe it.
public struct DeviceInfo: Sendable, Hashable {
    /// What the daemon reads it as.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case touchscreen, touchpad
        /// A recording played by `gestured run --replay`.
        case replay
    }

    /// The device's name as the kernel reports it (as in events' `device` field).
    public var name: String
    public var kind: Kind
    /// The device node (or the recording file), when there is one.
    public var path: String?

    public init(name: String, kind: Kind, path: String? = nil) {
        self.name = name
        self.kind = kind
        self.path = path
    }
}
