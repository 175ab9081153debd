/// A touchscreen that no `[[device]]` entry matches while other entries pass devices
/// through. gestured still reads it with the top-level settings, but does not pass it
/// through: no reserved edge, no `app-fingers`, no wake-swallow. That is almost always a
/// `match-name` that misses the panel's kernel name (a bus prefix such as `10-0038 `, or
/// another suffix such as `(00)` for `(79)`), so the daemon's log, its `STATUS=` line,
/// `gestured devices` and `gestured check-config` all say so, each through this one type.
public struct UnmatchedTouchscreen: Sendable, Hashable {
    /// The device's name as the kernel gives it (`EVIOCGNAME`).
    public var deviceName: String
    /// A `match-name` glob that matches `deviceName` and its likely siblings.
    public var suggestedPattern: String

    public init(deviceName: String) {
        self.deviceName = deviceName
        suggestedPattern = Self.suggestedPattern(for: deviceName)
    }

    /// The decision: a touchscreen (not a touchpad, not a pass-through clone) that no
    /// `[[device]]` entry matched (`settings.matchedEntry` is nil), in a configuration
    /// with at least one enabled pass-through entry. nil otherwise.
    public static func check(_ description: DeviceDescription, settings: ResolvedDeviceSettings, in configuration: Configuration)
        -> UnmatchedTouchscreen?
    {
        guard description.kind == .touchscreen, settings.matchedEntry == nil,
            PassThroughClone.originalNode(ofClonePhys: description.phys) == nil, concerns(configuration)
        else { return nil }
        return UnmatchedTouchscreen(deviceName: description.name)
    }

    /// Whether a configuration can have unmatched touchscreens at all: it has an enabled
    /// pass-through entry.
    public static func concerns(_ configuration: Configuration) -> Bool {
        configuration.devices.contains { $0.enabled && $0.passThrough }
    }

    /// One line for the log, `STATUS=`, `gestured devices` and `gestured check-config`.
    public var message: String {
        "touchscreen \"\(deviceName)\" matches no [[device]] entry, so it is not passed through;"
            + " match-name = \"\(suggestedPattern)\" would match it"
    }

    /// A glob for `name` that survives what differs between boards: a leading I²C bus and
    /// address (`10-0038 `, `4-005d `: the Raspberry Pi kernel's prefix, whose bus differs
    /// between models and overlays) becomes `*`, a trailing parenthesised suffix
    /// (`(79)`, `(00)`: the 7" display's firmware-dependent id) becomes `(*)`. A name with
    /// neither, or nothing else, is suggested as it is. The result always matches `name`.
    public static func suggestedPattern(for name: String) -> String {
        var pattern = Substring(name)
        var prefix = ""
        if let busEnd = i2cPrefixEnd(pattern) {
            pattern = pattern[busEnd...]
            prefix = "*"
        }
        var suffix = ""
        if pattern.hasSuffix(")"), let open = pattern.lastIndex(of: "("),
            pattern.index(after: open) < pattern.index(before: pattern.endIndex)
        {
            pattern = pattern[..<open]
            suffix = "(*)"
        }
        // What stays must still name the device, or the glob would match any device.
        guard pattern.contains(where: { !$0.isWhitespace }) else { return name }
        let suggested = prefix + pattern + suffix
        return Glob.matches(pattern: suggested, name) ? suggested : name
    }

    /// The index after `N-AAAA ` (decimal bus, four hex digits of address, a space) at the
    /// start of `name`; nil when the name does not start so.
    private static func i2cPrefixEnd(_ name: Substring) -> Substring.Index? {
        let bus = name.prefix { $0.isASCII && $0.isNumber }
        guard !bus.isEmpty, name[bus.endIndex...].first == "-" else { return nil }
        let afterDash = name.index(after: bus.endIndex)
        let address = name[afterDash...].prefix(4)
        guard address.count == 4, address.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        guard name[address.endIndex...].first == " " else { return nil }
        return name.index(after: address.endIndex)
    }
}
