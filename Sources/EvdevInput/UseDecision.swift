import GestureCore

/// Whether gestured would read a device, and if not, why.
public enum UseDecision: Sendable, Hashable {
    /// Used; `entry` is the index of the `[[device]]` entry whose settings apply (nil: the
    /// file's defaults).
    case use(entry: Int?)
    /// The node could not be opened (`EACCES`: the user is not in group `input`).
    case cannotOpen(SystemError)
    /// Not a touchscreen or touchpad.
    case notTouchDevice(DeviceKind)
    /// A `[[device]]` entry with `enabled = false` matches it.
    case ignoredByConfig(entry: Int)
    /// The configuration selects devices explicitly and no enabled entry matches this one.
    case notSelected
    /// A touchpad, and `use-touchpads` is off (and no entry names it explicitly).
    case touchpadsDisabled

    public var isUsed: Bool {
        switch self {
        case .use: return true
        case .cannotOpen, .notTouchDevice, .ignoredByConfig, .notSelected, .touchpadsDisabled: return false
        }
    }

    /// Why it is not used, in words for `gestured devices` and the log; nil when used.
    public var reason: String? {
        switch self {
        case .use: return nil
        case .cannotOpen(let error): return "cannot open: \(error.reason)" + (error.hint.map { " — \($0)" } ?? "")
        case .notTouchDevice(let kind): return "not a touch device (\(kind.rawValue))"
        case .ignoredByConfig(let entry): return "ignored by the configuration ([[device]] #\(entry + 1) has enabled = false)"
        case .notSelected: return "not matched by any enabled [[device]] entry of the configuration"
        case .touchpadsDisabled: return "touchpad, and use-touchpads is off"
        }
    }
}

extension Configuration {
    /// Whether the file names the devices to use: true as soon as it has an enabled
    /// `[[device]]` entry. Then only matching devices are used; otherwise every touchscreen
    /// (and touchpad with `use-touchpads`) is, minus entries with `enabled = false`.
    public var selectsDevicesExplicitly: Bool {
        devices.contains { $0.enabled }
    }

    /// The index of the first `[[device]]` entry matching the device (the one that applies).
    public func deviceEntry(for description: DeviceDescription, paths: [String]) -> Int? {
        devices.firstIndex {
            $0.match.matches(
                name: description.name, vendor: description.vendor, product: description.product, paths: paths)
        }
    }

    /// Whether gestured would use a device with this description, reachable under `paths`
    /// (its node and its by-id / by-path links). Pure.
    public func useDecision(for description: DeviceDescription, paths: [String]) -> UseDecision {
        let kind = description.kind
        guard kind.isTouchDevice else { return .notTouchDevice(kind) }
        let entry = deviceEntry(for: description, paths: paths)
        if let entry, !devices[entry].enabled { return .ignoredByConfig(entry: entry) }
        if selectsDevicesExplicitly, entry == nil { return .notSelected }
        if kind == .touchpad, !useTouchpads, entry == nil { return .touchpadsDisabled }
        return .use(entry: entry)
    }

    /// `useDecision(for:paths:)` for the outcome of opening a node.
    public func useDecision(for opened: Result<DeviceDescription, SystemError>, paths: [String]) -> UseDecision {
        switch opened {
        case .success(let description): return useDecision(for: description, paths: paths)
        case .failure(let error): return .cannotOpen(error)
        }
    }

    /// The geometry that applies to a device: its entry's, or the file's default.
    public func geometry(forEntry entry: Int?) -> DeviceGeometry {
        entry.map { devices[$0].geometry } ?? defaultGeometry
    }
}
