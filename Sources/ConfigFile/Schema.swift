import GestureCore
import GestureProtocol

/// The keys of gestured.toml and how each maps onto the `Configuration` model.
/// docs/configuration.md and config/gestured.toml describe the same schema.
enum Schema {
    static let maximumDuration = 60_000.0  // ms
    static let maximumDistance = 1_000.0  // mm

    static func duration(_ bounds: Bounds) -> Bounds { .atMost(maximumDuration, bounds, unit: "ms") }
    static func distance(_ bounds: Bounds) -> Bounds { .atMost(maximumDistance, bounds, unit: "mm") }

    // MARK: [gestures] and region overrides

    static var tap: [Field<TapSettings>] {
        [
            .number("slop", \.slop, distance(.nonNegative)),
            .number("multi-tap-interval", \.multiTapInterval, duration(.nonNegative)),
            .number("multi-tap-distance", \.multiTapDistance, distance(.nonNegative)),
            .number("finger-window", \.fingerWindow, duration(.nonNegative)),
            .boolean("exclusive", \.exclusive),
            .integer("max-count", \.maxCount, 1...20),
        ]
    }

    static var longPress: [Field<LongPressSettings>] {
        [
            .number("minimum-duration", \.minimumDuration, duration(.positive)),
            .number("maximum-distance", \.maximumDistance, distance(.nonNegative)),
        ]
    }

    static var drag: [Field<DragSettings>] {
        [
            .number("minimum-distance", \.minimumDistance, distance(.nonNegative)),
            .number("velocity-window", \.velocityWindow, duration(.positive)),
            .number("deceleration-rate", \.decelerationRate, .openUnitInterval),
        ]
    }

    static var swipe: [Field<SwipeSettings>] {
        [
            .number("minimum-distance", \.minimumDistance, distance(.nonNegative)),
            .number("minimum-velocity", \.minimumVelocity, .atMost(100_000, .nonNegative, unit: "mm/s")),
            .number("edge-margin", \.edgeMargin, distance(.nonNegative)),
        ]
    }

    static var pinch: [Field<PinchSettings>] {
        [
            .number("minimum-scale-change", \.minimumScaleChange, .range(0...10)),
            .number("minimum-spread-change", \.minimumSpreadChange, distance(.nonNegative)),
        ]
    }

    static var rotate: [Field<RotateSettings>] {
        [
            .number("minimum-angle", \.minimumAngle, .range(0...180)),
            .number("minimum-arc", \.minimumArc, distance(.nonNegative)),
        ]
    }

    /// `enabled` plus one sub-table per recognizer; `prefix` names the enclosing table in
    /// messages (`gestures`, `region`, `device.gestures`, `device.region`).
    static func gestures(prefix: String) -> [Field<GestureSettings>] {
        [
            enabledGestures,
            .table("tap", \.tap, tap, name: "[\(prefix).tap]"),
            .table("long-press", \.longPress, longPress, name: "[\(prefix).long-press]"),
            .table("drag", \.drag, drag, name: "[\(prefix).drag]"),
            .table("swipe", \.swipe, swipe, name: "[\(prefix).swipe]"),
            .table("pinch", \.pinch, pinch, name: "[\(prefix).pinch]"),
            .table("rotate", \.rotate, rotate, name: "[\(prefix).rotate]"),
        ]
    }

    static var enabledGestures: Field<GestureSettings> {
        Field(key: "enabled") { (settings: inout GestureSettings, node: TOMLNode, place: Place) throws(ConfigError) in
            settings.enabled = try gestureKinds(node, key: "enabled", place: place)
        }
    }

    /// An array of gesture names, each at most once.
    static func gestureKinds(_ node: TOMLNode, key: String, place: Place) throws(ConfigError) -> Set<GestureKind> {
        let names = GestureKind.allCases.map(\.rawValue)
        var kinds: Set<GestureKind> = []
        for element in try Values.array(node, key: key, place: place) {
            guard case .string(let name) = element.value else {
                throw place.invalid(key, "must list gesture names as strings, not \(element.value.typeName)", line: element.line)
            }
            guard let kind = GestureKind(rawValue: name) else {
                throw place.error(
                    "unknown gesture '\(name)' in '\(key)'\(suggestion(for: name, among: names)); gestures are \(quotedList(names))",
                    line: element.line
                )
            }
            guard kinds.insert(kind).inserted else {
                throw place.invalid(key, "lists '\(name)' twice", line: element.line)
            }
        }
        return kinds
    }

    // MARK: [[region]] composition (docs/gestures.md, "Regions and composition")

    static var regionComposition: [Field<Region>] {
        [
            .boolean("fall-through", \.fallThrough),
            .boolean("reserve", \.reserve),
            Field(key: "simultaneous") { (region: inout Region, node: TOMLNode, place: Place) throws(ConfigError) in
                region.simultaneous = try gestureKinds(node, key: "simultaneous", place: place)
            },
            Field(key: "high-priority") { (region: inout Region, node: TOMLNode, place: Place) throws(ConfigError) in
                region.highPriority = try gestureKinds(node, key: "high-priority", place: place)
            },
        ] + appTouches.map { $0.lifted(\Region.app) }
    }

    // MARK: What the app gets, per [[region]] and [[device]] (docs/configuration.md)

    /// The most `app-fingers` takes: more fingers than any touchscreen tracks.
    static let maximumAppFingers = 32

    static var appTouches: [Field<AppTouchSettings>] {
        [
            Field(key: "app-fingers") { (app: inout AppTouchSettings, node: TOMLNode, place: Place) throws(ConfigError) in
                app.fingers = try Values.integer(node, key: "app-fingers", range: 1...maximumAppFingers, place: place)
            },
            Field(key: "app-long-press") { (app: inout AppTouchSettings, node: TOMLNode, place: Place) throws(ConfigError) in
                app.longPress = try Values.boolean(node, key: "app-long-press", place: place)
            },
            .choice("app-input", \.input, AppInput.allCases.map { ($0.rawValue, Optional($0)) }),
            .choice("pointer-drag", \.pointerDrag, PointerDrag.allCases.map { ($0.rawValue, Optional($0)) }),
        ]
    }

    // MARK: [geometry] and [[device]] geometry

    /// Millimetres: from a watch face to a video wall.
    static let physicalSizeRange = 1.0...10_000.0

    static var geometry: [Field<DeviceGeometry>] {
        [
            Field(key: "rotation") { (geometry: inout DeviceGeometry, node: TOMLNode, place: Place) throws(ConfigError) in
                let degrees = try Values.integer(node, key: "rotation", range: Int.min...Int.max, place: place)
                guard let rotation = Rotation(rawValue: degrees) else {
                    throw place.invalid("rotation", "must be 0, 90, 180 or 270 (degrees clockwise), not \(degrees)", line: node.line)
                }
                geometry.rotation = rotation
            },
            Field(key: "calibration") { (geometry: inout DeviceGeometry, node: TOMLNode, place: Place) throws(ConfigError) in
                let matrix = try Values.numbers(node, key: "calibration", count: 6, shape: "[a, b, c, d, e, f]", place: place)
                if let problem = DeviceGeometry.calibrationProblem(matrix) {
                    throw place.invalid("calibration", problem, line: node.line)
                }
                geometry.calibration = matrix
                geometry.calibrationSource = .configuration
            },
            Field(key: "physical-size") { (geometry: inout DeviceGeometry, node: TOMLNode, place: Place) throws(ConfigError) in
                let size = try Values.numbers(node, key: "physical-size", count: nil, shape: "", place: place)
                switch size.count {
                case 0:
                    geometry.physicalSize = nil
                case 2 where size.allSatisfy({ physicalSizeRange.contains($0) }):
                    geometry.physicalSize = PhysicalSize(width: size[0], height: size[1])
                case 2:
                    throw place.invalid(
                        "physical-size",
                        "must be a width and a height in mm, each from \(format(physicalSizeRange.lowerBound)) to \(format(physicalSizeRange.upperBound))",
                        line: node.line)
                default:
                    throw place.invalid(
                        "physical-size", "must be [width, height] in mm (or [] to use the device's resolution), got \(size.count) numbers",
                        line: node.line)
                }
            },
        ]
    }

    // MARK: [daemon]

    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
    /// The longest `idle-timeout`: a week, in seconds.
    static let maximumIdleTimeout = 604_800.0

    static var daemon: [Field<Configuration>] {
        [
            Field(key: "socket") { (config: inout Configuration, node: TOMLNode, place: Place) throws(ConfigError) in
                let socket = try Values.string(node, key: "socket", place: place)
                guard socket.hasPrefix("/") else {
                    throw place.invalid("socket", "must be an absolute path, not '\(socket)'", line: node.line)
                }
                guard socket.utf8.count <= 107 else {
                    throw place.invalid(
                        "socket", "is \(socket.utf8.count) bytes long; a Unix socket path holds at most 107", line: node.line)
                }
                config.daemon.socketPath = socket
            },
            Field(key: "socket-mode") { (config: inout Configuration, node: TOMLNode, place: Place) throws(ConfigError) in
                config.daemon.socketMode = try socketMode(node, place: place)
            },
            Field(key: "socket-group") { (config: inout Configuration, node: TOMLNode, place: Place) throws(ConfigError) in
                let group = try Values.string(node, key: "socket-group", place: place)
                config.daemon.socketGroup = group.isEmpty ? nil : group
            },
            Field.integer("max-clients", \.daemon.maxClients, 1...65_536),
            Field.integer("client-queue", \.daemon.clientQueueLength, 1...1_048_576),
            Field(key: "queue-memory") { (config: inout Configuration, node: TOMLNode, place: Place) throws(ConfigError) in
                config.daemon.queueMemory = try Values.integer(node, key: "queue-memory", range: 1...4096, place: place) << 20
            },
            Field.choice("slow-client", \.daemon.slowClientPolicy, SlowClientPolicy.allCases.map { ($0.rawValue, $0) }),
            Field(key: "allowed-users") { (config: inout Configuration, node: TOMLNode, place: Place) throws(ConfigError) in
                config.daemon.allowedUsers = try ids(node, key: "allowed-users", kind: "uid", place: place)
            },
            Field(key: "allowed-groups") { (config: inout Configuration, node: TOMLNode, place: Place) throws(ConfigError) in
                config.daemon.allowedGroups = try ids(node, key: "allowed-groups", kind: "gid", place: place)
            },
            Field.choice("log-level", \.daemon.logLevel, logLevels.map { ($0, $0) }),
            Field(key: "idle-timeout") { (config: inout Configuration, node: TOMLNode, place: Place) throws(ConfigError) in
                let seconds = try Values.number(node, key: "idle-timeout", bounds: .range(0...maximumIdleTimeout), place: place)
                config.daemon.idleTimeout = .seconds(seconds)
            },
            Field.boolean("use-touchpads", \.useTouchpads),
        ]
    }

    /// `"0660"` (octal digits in a string, as chmod takes them) or an integer such as `0o660`.
    static func socketMode(_ node: TOMLNode, place: Place) throws(ConfigError) -> UInt32 {
        let problem = "must be a permission mode between \"0000\" and \"0777\" (an octal string like \"0660\", or 0o660)"
        switch node.value {
        case .string(let text):
            guard (1...4).contains(text.count), text.allSatisfy({ ("0"..."7").contains($0) }),
                let mode = UInt32(text, radix: 8), mode <= 0o777
            else {
                throw place.invalid("socket-mode", "\(problem), not '\(text)'", line: node.line)
            }
            return mode
        case .integer(let value):
            guard (0...0o777).contains(value) else {
                throw place.invalid("socket-mode", "\(problem), not \(value) (decimal)", line: node.line)
            }
            return UInt32(value)
        case .float, .boolean, .array, .table, .tableArray:
            throw place.invalid("socket-mode", "\(problem), not \(node.value.typeName)", line: node.line)
        }
    }

    /// Numeric user or group ids (names are not resolved here; use `id -u NAME`).
    static func ids(_ node: TOMLNode, key: String, kind: String, place: Place) throws(ConfigError) -> [UInt32] {
        var ids: [UInt32] = []
        for element in try Values.array(node, key: key, place: place) {
            switch element.value {
            case .integer(let value) where value >= 0 && value < Int64(UInt32.max):
                ids.append(UInt32(value))
            case .string(let name):
                throw place.invalid(
                    key, "takes numeric \(kind)s; names like '\(name)' are not resolved (find the number with `getent`)", line: element.line
                )
            case .integer, .float, .boolean, .array, .table, .tableArray:
                throw place.invalid(key, "takes numeric \(kind)s from 0 to \(UInt32.max - 1)", line: element.line)
            }
        }
        return ids
    }

    // MARK: [[device]]

    static var deviceMatch: [Field<DeviceMatch>] {
        [
            Field(key: "match-name") { (match: inout DeviceMatch, node: TOMLNode, place: Place) throws(ConfigError) in
                let name = try Values.string(node, key: "match-name", place: place)
                guard !name.isEmpty else {
                    throw place.invalid("match-name", "must not be empty (use \"*\" for every device)", line: node.line)
                }
                match.name = name
            },
            Field(key: "match-id") { (match: inout DeviceMatch, node: TOMLNode, place: Place) throws(ConfigError) in
                let id = try Values.string(node, key: "match-id", place: place)
                guard DeviceMatch.parseUSBID(id) != nil else {
                    throw place.invalid("match-id", "must be vendor:product in hex, like \"04f3:010c\", not '\(id)'", line: node.line)
                }
                match.usbID = id
            },
            Field(key: "match-path") { (match: inout DeviceMatch, node: TOMLNode, place: Place) throws(ConfigError) in
                let path = try Values.string(node, key: "match-path", place: place)
                guard path.hasPrefix("/") else {
                    throw place.invalid("match-path", "must be an absolute path such as /dev/input/by-id/…, not '\(path)'", line: node.line)
                }
                match.path = path
            },
        ]
    }

    // MARK: [touch] and [device.touch]

    /// The longest `stuck-after`: a week, in seconds.
    static let maximumStuckAfter = 604_800.0

    /// Touch hygiene; each key given overrides the value below it (built-in default →
    /// `[touch]` → `[device.touch]`).
    static var touch: [Field<TouchHygieneOverrides>] {
        func milliseconds(_ key: String, _ target: WritableKeyPath<TouchHygieneOverrides, TimeSpan?>) -> Field<TouchHygieneOverrides> {
            Field(key: key) { (touch: inout TouchHygieneOverrides, node: TOMLNode, place: Place) throws(ConfigError) in
                touch[keyPath: target] = .milliseconds(try Values.number(node, key: key, bounds: duration(.nonNegative), place: place))
            }
        }
        return [
            milliseconds("debounce", \.debounce),
            milliseconds("ignore-repeat", \.ignoreRepeat),
            milliseconds("hold-duration", \.holdDuration),
            Field(key: "stuck-after") { (touch: inout TouchHygieneOverrides, node: TOMLNode, place: Place) throws(ConfigError) in
                let seconds = try Values.number(
                    node, key: "stuck-after", bounds: .atMost(maximumStuckAfter, .nonNegative, unit: "s"), place: place)
                touch.stuckAfter = .seconds(seconds)
            },
            Field(key: "phantom") { (touch: inout TouchHygieneOverrides, node: TOMLNode, place: Place) throws(ConfigError) in
                touch.phantom = try Values.choice(node, key: "phantom", PhantomPolicy.allCases.map { ($0.rawValue, $0) }, place: place)
            },
            Field(key: "shortest-contact") { (touch: inout TouchHygieneOverrides, node: TOMLNode, place: Place) throws(ConfigError) in
                let milliseconds = try Values.number(
                    node, key: "shortest-contact",
                    bounds: .atMost(TouchHygieneSettings.largestShortestContact.milliseconds, .nonNegative, unit: "ms"), place: place)
                touch.shortestContact = .milliseconds(milliseconds)
            },
        ]
    }

    static var device: [Field<DeviceSettings>] {
        deviceMatch.map { $0.lifted(\DeviceSettings.match) }
            + [
                .boolean("enabled", \.enabled), .boolean("grab", \.grab), .boolean("pass-through", \.passThrough),
                .boolean("wake-swallow", \.wakeSwallow),
                Field(key: "wake-guard") { (device: inout DeviceSettings, node: TOMLNode, place: Place) throws(ConfigError) in
                    device.wakeGuard = .milliseconds(
                        try Values.number(node, key: "wake-guard", bounds: duration(.nonNegative), place: place))
                },
                .boolean("pass-through-pointer", \.passThroughPointer),
                Field(key: "clone-name") { (device: inout DeviceSettings, node: TOMLNode, place: Place) throws(ConfigError) in
                    let name = try Values.string(node, key: "clone-name", place: place)
                    let longest = DeviceSettings.longestCloneName
                    guard !name.isEmpty, name.utf8.count <= longest,
                        !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
                    else {
                        throw place.invalid(
                            "clone-name",
                            "must be 1 to \(longest) bytes with no control characters (the kernel keeps \(longest)), not '\(name)'",
                            line: node.line)
                    }
                    device.cloneName = name
                },
                .choice("clone-orientation", \.cloneOrientation, CloneOrientation.allCases.map { ($0.rawValue, $0) }),
                .table("touch", \.touch, touch, name: "[device.touch]"),
            ]
            + appTouches.map { $0.lifted(\DeviceSettings.app) }
            + geometry.map { $0.lifted(\DeviceSettings.geometry) }
    }
}
