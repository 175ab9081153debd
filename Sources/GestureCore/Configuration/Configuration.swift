import GestureProtocol

/// How the daemon and the web bridge treat a client that stops reading (defined beside
/// the one delivery queue that applies it, `GestureProtocol.DeliveryQueue`).
public typealias SlowClientPolicy = GestureProtocol.SlowClientPolicy

/// Daemon-wide settings (`[daemon]` in the configuration file).
public struct DaemonSettings: Sendable, Hashable {
    /// The `socket` key; nil when the file does not set it: then `$GESTURED_SOCKET`, else
    /// `/run/gestured/gestured.sock` (GestureProtocol's `DaemonSocket`, which the daemon's
    /// command line applies; the engine reads no environment).
    public var socketPath: String? = nil
    /// Permission bits of the socket file.
    public var socketMode: UInt32 = 0o660
    /// Group owning the socket file; nil keeps the daemon's group.
    public var socketGroup: String? = nil
    public var maxClients: Int = 64
    /// Events queued per client before the slow-client policy applies.
    public var clientQueueLength: Int = 1024
    /// Bytes all clients' queued and unsent lines may take together; past it, a client
    /// holding more than its share (this divided by the clients connected) is treated as
    /// full, whatever `clientQueueLength` says.
    public var queueMemory: Int = 32 << 20
    public var slowClientPolicy: SlowClientPolicy = .dropOldest
    /// When non-empty, only these uids (or members of `allowedGroups`) may connect.
    public var allowedUsers: [UInt32] = []
    public var allowedGroups: [UInt32] = []
    /// swift-log level name: trace, debug, info, notice, warning, error, critical.
    public var logLevel: String = "info"
    /// No touch on any device for this long sends `activity` `idle` to clients, the
    /// next touch `active`; zero: never.
    public var idleTimeout: TimeSpan = .seconds(60)

    public init() {}
}

/// How a `[[device]]` entry picks devices. Every given criterion must match.
public struct DeviceMatch: Sendable, Hashable {
    /// Shell-style glob on the device name (`*`, `?`).
    public var name: String? = nil
    /// `vendor:product` in hex, e.g. `04f3:010c`.
    public var usbID: String? = nil
    /// A `/dev/input/by-id/…` or `/dev/input/by-path/…` link (or any path to the node).
    public var path: String? = nil

    public init(name: String? = nil, usbID: String? = nil, path: String? = nil) {
        self.name = name
        self.usbID = usbID
        self.path = path
    }
}

/// Settings for the devices one `[[device]]` entry matches.
public struct DeviceSettings: Sendable, Hashable {
    public var match: DeviceMatch
    /// false: never use matching devices.
    public var enabled: Bool = true
    /// Grab the device exclusively so its touches do not also reach the compositor.
    public var grab: Bool = false
    /// Grab the device and re-emit every touch that is not reserved on a uinput clone of it
    /// (implies `grab`).
    public var passThrough: Bool = false
    /// On a pass-through device, the touches that wake the screen are reserved too: the
    /// first after an idle period, those while the display is off, those within `wakeGuard`.
    public var wakeSwallow: Bool = false
    /// With wake-swallow: how long after the display came back on touches still belong to
    /// the same wake (`wake-guard`, milliseconds).
    public var wakeGuard: TimeSpan = DeviceSettings.defaultWakeGuard
    /// On a pass-through touchscreen, the clone keeps the original's pointer buttons
    /// (`BTN_LEFT` …) and relative axes; by default it is touch-only, so that udev does not
    /// also call it a mouse and the compositor shows no cursor for it.
    public var passThroughPointer: Bool = false
    /// On a pass-through device, the clone's name (`clone-name`); nil: the original's own, so
    /// that everything keyed on the panel's name reaches the clone. A compositor configuration
    /// keyed on the panel's name that must not reach the clone (labwc's `<touch
    /// mouseEmulation="yes">` in a system rc.xml that comes first) needs a name of its own.
    public var cloneName: String? = nil
    /// The longest clone name the kernel keeps, in bytes (uinput's `UINPUT_MAX_NAME_SIZE`, 80,
    /// with its terminating NUL).
    public static let longestCloneName = 79
    /// On a pass-through device, which coordinates the clone reports: the panel's own, or
    /// the screen's (`rotation` and `calibration` applied).
    public var cloneOrientation = CloneOrientation.panel
    /// On a pass-through device, what the app gets of touches outside every region that
    /// sets these keys (`app-fingers`, `app-long-press`).
    public var app = AppTouchSettings()
    public var geometry = DeviceGeometry()
    /// The device's own gestures and regions; nil uses the file's top-level ones.
    public var engine: EngineConfiguration? = nil
    /// The entry's own `[touch]` keys (`debounce`, …), each overriding the top-level one.
    public var touch = TouchHygieneOverrides()

    public init(match: DeviceMatch) {
        self.match = match
    }

    /// `wake-guard`'s default: a second tap or a bouncing finger of the same wake lands
    /// within it, a visitor's deliberate tap on the woken page after it.
    public static let defaultWakeGuard = TimeSpan.milliseconds(300)
}

/// The whole configuration file.
public struct Configuration: Sendable, Hashable {
    public var daemon = DaemonSettings()
    /// Top-level gestures and regions, for every device without its own.
    public var engine = EngineConfiguration()
    /// Geometry for devices no `[[device]]` entry matches.
    public var defaultGeometry = DeviceGeometry()
    /// Touch hygiene (`[touch]`) for every device; `[[device]]` entries override key by key.
    public var touch = TouchHygieneSettings()
    /// Use touchpads as well as touchscreens (touchpads usually drive the pointer).
    public var useTouchpads: Bool = false
    /// Per-device entries; the first entry that matches a device applies.
    public var devices: [DeviceSettings] = []

    public init() {}
}

/// The `[touch]` keys one `[[device]]` entry sets (nil: the top-level value applies).
public struct TouchHygieneOverrides: Sendable, Hashable {
    public var debounce: TimeSpan? = nil
    public var ignoreRepeat: TimeSpan? = nil
    public var holdDuration: TimeSpan? = nil
    public var stuckAfter: TimeSpan? = nil
    public var phantom: PhantomPolicy? = nil
    public var shortestContact: TimeSpan? = nil

    public init() {}

    /// `base` with every key this entry sets replaced.
    public func applied(to base: TouchHygieneSettings) -> TouchHygieneSettings {
        TouchHygieneSettings(
            debounce: debounce ?? base.debounce, ignoreRepeat: ignoreRepeat ?? base.ignoreRepeat,
            holdDuration: holdDuration ?? base.holdDuration, stuckAfter: stuckAfter ?? base.stuckAfter, phantom: phantom ?? base.phantom,
            shortestContact: shortestContact ?? base.shortestContact)
    }
}
