import GestureCore
import SystemCalls

/// Whether gestured would read a device, and if not, why.
public enum UseDecision: Sendable, Hashable {
    /// Used, with these settings (the first matching `[[device]]` entry's, or the defaults).
    case use(ResolvedDeviceSettings)
    /// The node could not be opened (`EACCES`: the user is not in group `input`).
    case cannotOpen(SystemError)
    /// Not a touchscreen or touchpad.
    case notTouchDevice(DeviceKind)
    /// The first `[[device]]` entry matching it has `enabled = false`.
    case ignoredByConfig(entry: Int)
    /// A touchpad, and `use-touchpads` is off (entries cannot force a touchpad in).
    case touchpadsDisabled
    /// A pass-through clone made by gestured (`[[device]] pass-through`) of the device at
    /// this node (its `phys` says so): its touches are already the daemon's.
    case passThroughClone(of: String)

    public var isUsed: Bool {
        switch self {
        case .use: return true
        case .cannotOpen, .notTouchDevice, .ignoredByConfig, .touchpadsDisabled, .passThroughClone: return false
        }
    }

    /// Why it is not used, in words for `gestured devices` and the log; nil when used.
    public var reason: String? {
        switch self {
        case .use: return nil
        case .cannotOpen(let error): return "cannot open: \(error.reason)" + (error.hint.map { " — \($0)" } ?? "")
        case .notTouchDevice(let kind): return "not a touch device (\(kind.rawValue))"
        case .ignoredByConfig(let entry): return "ignored by the configuration ([[device]] #\(entry + 1) has enabled = false)"
        case .touchpadsDisabled: return "touchpad, and use-touchpads is off"
        case .passThroughClone(let original): return "gestured's pass-through clone of \(original)"
        }
    }
}

extension Configuration {
    /// The settings resolved for a device (see `settings(forDevice:vendor:product:paths:)`).
    public func settings(for description: DeviceDescription, paths: [String]) -> ResolvedDeviceSettings {
        settings(forDevice: description.name, vendor: description.vendor, product: description.product, paths: paths)
    }

    /// Whether gestured would use a device with this description, reachable under `paths`
    /// (its node and its by-id / by-path links). Pure. Entries only exclude devices;
    /// `use-touchpads = false` excludes touchpads whatever the entries say.
    /// `systemCalibration` (udev's, looked up by the caller) applies when the
    /// configuration gives the device no `calibration`.
    public func useDecision(for description: DeviceDescription, paths: [String], systemCalibration: [Double]? = nil) -> UseDecision {
        if let original = PassThroughClone.originalNode(ofClonePhys: description.phys) { return .passThroughClone(of: original) }
        let kind = description.kind
        guard kind.isTouchDevice else { return .notTouchDevice(kind) }
        var resolved = settings(for: description, paths: paths)
        resolved.geometry = resolved.geometry.withSystemCalibration(systemCalibration)
        if !resolved.enabled, let entry = resolved.matchedEntry { return .ignoredByConfig(entry: entry) }
        if kind == .touchpad, !useTouchpads { return .touchpadsDisabled }
        return .use(resolved)
    }

    /// `useDecision(for:paths:)` for the outcome of opening a node.
    public func useDecision(for opened: Result<DeviceDescription, SystemError>, paths: [String], systemCalibration: [Double]? = nil)
        -> UseDecision
    {
        switch opened {
        case .success(let description): return useDecision(for: description, paths: paths, systemCalibration: systemCalibration)
        case .failure(let error): return .cannotOpen(error)
        }
    }
}
