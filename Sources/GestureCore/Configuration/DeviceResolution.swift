import GestureProtocol

/// Everything the engine and the device layer need for one concrete input device, after
/// the configuration's `[[device]]` entries have been applied.
public struct ResolvedDeviceSettings: Sendable, Hashable {
    /// false: a `[[device]]` entry with `enabled = false` excludes this device.
    public var enabled: Bool
    /// Grab the device exclusively (also when `passThrough`).
    public var grab: Bool
    /// Re-emit the touches that are not reserved on a uinput clone.
    public var passThrough: Bool
    /// Reserve the touches that wake the screen (pass-through devices only).
    public var wakeSwallow: Bool
    /// Touches within this time after the display came back on belong to the same wake.
    public var wakeGuard: TimeSpan
    /// The clone keeps the original's pointer buttons and relative axes (pass-through
    /// touchscreens only; by default their clone is touch-only).
    public var passThroughPointer: Bool
    /// The clone's name; nil: the original's (pass-through devices only).
    public var cloneName: String?
    /// Which coordinates the clone reports (pass-through only).
    public var cloneOrientation: CloneOrientation
    /// What the app gets of touches outside every region that sets the keys (pass-through only).
    public var app: AppTouchSettings
    public var geometry: DeviceGeometry
    public var engine: EngineConfiguration
    /// Touch hygiene (`[touch]`, overridden key by key by the entry's own keys).
    public var touch: TouchHygieneSettings
    /// Index into `Configuration.devices` of the entry that applied; nil when none matched.
    public var matchedEntry: Int?

    public init(
        enabled: Bool, grab: Bool, passThrough: Bool = false, wakeSwallow: Bool = false,
        wakeGuard: TimeSpan = DeviceSettings.defaultWakeGuard, passThroughPointer: Bool = false,
        cloneOrientation: CloneOrientation = .panel, cloneName: String? = nil, app: AppTouchSettings = AppTouchSettings(),
        geometry: DeviceGeometry, engine: EngineConfiguration,
        touch: TouchHygieneSettings = TouchHygieneSettings(),
        matchedEntry: Int?
    ) {
        self.enabled = enabled
        self.grab = grab || passThrough
        self.passThrough = passThrough
        self.wakeSwallow = wakeSwallow
        self.wakeGuard = wakeGuard
        self.passThroughPointer = passThroughPointer
        self.cloneName = cloneName
        self.cloneOrientation = cloneOrientation
        self.app = app
        self.geometry = geometry
        self.engine = engine
        self.touch = touch
        self.matchedEntry = matchedEntry
    }
}

extension Configuration {
    /// The settings for a device: those of the first `[[device]]` entry that matches it,
    /// else the top-level geometry and engine. The daemon and `gestured replay --config`
    /// both resolve devices through this, so they agree.
    ///
    /// - Parameters:
    ///   - name: the kernel's device name (`EVIOCGNAME`).
    ///   - vendor, product: the device's id.
    ///   - paths: the device node and every link to it (`/dev/input/by-id/…`, `by-path/…`).
    public func settings(forDevice name: String, vendor: UInt16, product: UInt16, paths: [String]) -> ResolvedDeviceSettings {
        for (index, entry) in devices.enumerated()
        where entry.match.matches(name: name, vendor: vendor, product: product, paths: paths) {
            return ResolvedDeviceSettings(
                enabled: entry.enabled,
                grab: entry.grab,
                passThrough: entry.passThrough,
                wakeSwallow: entry.wakeSwallow,
                wakeGuard: entry.wakeGuard,
                passThroughPointer: entry.passThroughPointer,
                cloneOrientation: entry.cloneOrientation,
                cloneName: entry.cloneName,
                app: entry.app,
                geometry: entry.geometry,
                engine: entry.engine ?? engine,
                touch: entry.touch.applied(to: touch),
                matchedEntry: index
            )
        }
        return ResolvedDeviceSettings(
            enabled: true, grab: false, geometry: defaultGeometry, engine: engine, touch: touch, matchedEntry: nil)
    }
}

extension DeviceMatch {
    /// Whether a device satisfies every criterion given (a match with no criteria matches
    /// every device). `name` and `path` are globs (`*` any run of characters, `?` one
    /// character, case-sensitive); `usbID` is `vendor:product` in hex, case-insensitive.
    public func matches(name deviceName: String, vendor: UInt16, product: UInt16, paths: [String]) -> Bool {
        if let name, !Glob.matches(pattern: name, deviceName) {
            return false
        }
        if let usbID {
            guard let id = DeviceMatch.parseUSBID(usbID), id.vendor == vendor, id.product == product else {
                return false
            }
        }
        if let path, !paths.contains(where: { Glob.matches(pattern: path, $0) }) {
            return false
        }
        return true
    }

    /// Parses `vvvv:pppp` (1–4 hex digits each, either case); nil when malformed.
    public static func parseUSBID(_ text: String) -> (vendor: UInt16, product: UInt16)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ (1...4).contains($0.count) && $0.allSatisfy(\.isHexDigit) }),
            let vendor = UInt16(parts[0], radix: 16),
            let product = UInt16(parts[1], radix: 16)
        else {
            return nil
        }
        return (vendor, product)
    }
}

/// Shell-style glob matching with `*` and `?` only (no character classes, no escapes).
public enum Glob {
    /// Whether `text` matches `pattern` as a whole.
    public static func matches(pattern: String, _ text: String) -> Bool {
        let pattern = Array(pattern.unicodeScalars)
        let text = Array(text.unicodeScalars)
        var p = 0
        var t = 0
        // Where the last `*` was and the text position it currently absorbs up to.
        var star: (pattern: Int, text: Int)? = nil
        while t < text.count {
            if p < pattern.count, pattern[p] == "*" {
                star = (p, t)
                p += 1
            } else if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if let last = star {
                // Let the last star absorb one more character and retry.
                p = last.pattern + 1
                t = last.text + 1
                star = (last.pattern, last.text + 1)
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" {
            p += 1
        }
        return p == pattern.count
    }
}
