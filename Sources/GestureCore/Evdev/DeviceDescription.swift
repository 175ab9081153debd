/// The range and resolution of one absolute axis (`struct input_absinfo`).
public struct AbsInfo: Sendable, Hashable {
    public var value: Int32
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    /// Units per millimetre (0 when the device does not say, common on touchscreens).
    public var resolution: Int32

    public init(value: Int32 = 0, minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }
}

/// What an input device is and what it can report: the same facts whether they come from
/// libevdev on a live node, an evemu/evtest header, or are inferred from a recording's data.
public struct DeviceDescription: Sendable, Hashable {
    public var name: String
    /// The kernel's physical path (`phys`, e.g. `usb-0000:00:14.0-1/input0`); nil when the
    /// device has none or the source does not say (recordings rarely do). gestured marks its
    /// pass-through clones by their `phys` (`PassThroughClone.physPrefix`).
    public var phys: String?
    public var bus: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16
    /// `INPUT_PROP_*` values the device sets.
    public var properties: Set<UInt16>
    /// Supported codes per event type (`EV_KEY` → key codes, `EV_ABS` → axes, …).
    public var codes: [UInt16: Set<UInt16>]
    /// Axis information for every supported `EV_ABS` code.
    public var absInfo: [UInt16: AbsInfo]

    public init(
        name: String, phys: String? = nil, bus: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0,
        properties: Set<UInt16> = [], codes: [UInt16: Set<UInt16>] = [:], absInfo: [UInt16: AbsInfo] = [:]
    ) {
        self.name = name
        self.phys = phys
        self.bus = bus
        self.vendor = vendor
        self.product = product
        self.version = version
        self.properties = properties
        self.codes = codes
        self.absInfo = absInfo
    }

    /// Whether the device supports `code` of event `type`.
    public func has(_ type: UInt16, _ code: UInt16) -> Bool {
        codes[type]?.contains(code) ?? false
    }

    /// Whether the device sets the `INPUT_PROP_*` property.
    public func hasProperty(_ property: UInt16) -> Bool {
        properties.contains(property)
    }

    /// Whether the device reports multitouch positions.
    public var isMultitouch: Bool { absInfo[ABS.mtPositionX] != nil && absInfo[ABS.mtPositionY] != nil }

    /// Whether the device uses slots (multitouch protocol B).
    public var hasSlots: Bool { absInfo[ABS.mtSlot] != nil }

    /// Number of slots (protocol B), 1 for protocol A or single-touch.
    public var slotCount: Int {
        guard let slot = absInfo[ABS.mtSlot] else { return 1 }
        return max(1, Int(slot.maximum) - Int(slot.minimum) + 1)
    }
}
