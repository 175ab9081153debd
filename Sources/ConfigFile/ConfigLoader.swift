import GestureCore
import SystemCalls

/// Reads gestured.toml into a `Configuration`. Every problem (TOML syntax, unknown key,
/// wrong type, value out of range) is a `ConfigError` naming the file and the line.
public enum ConfigLoader {
    /// Where the daemon and `gestured check-config` look when given no file.
    public static let defaultPath = "/etc/gestured/gestured.toml"

    /// Reads and parses the file at `path`.
    public static func load(path: String) throws(ConfigError) -> Configuration {
        try parse(text: try readText(path: path), path: path)
    }

    /// Parses configuration text; `path` only names the file in errors.
    public static func parse(text: String, path: String) throws(ConfigError) -> Configuration {
        let root = try TOMLParser.parse(text, path: path)
        return try ConfigurationDecoder(path: path).decode(root)
    }

    /// The largest configuration file read (checked before reading it): a real one is a
    /// few KiB, and parsing stays quick at this size (docs/configuration.md, "Limits").
    public static let maximumFileSize = 1 << 20

    /// The file's text, or an error saying why it cannot be read (missing, a directory, a
    /// FIFO or device, a symlink loop, unreadable, larger than `maximumFileSize`, not UTF-8:
    /// with the line of the first bad byte).
    static func readText(path: String) throws(ConfigError) -> String {
        let bytes: [UInt8]
        do {
            bytes = try RegularFile.read(path: path, limit: maximumFileSize)
        } catch {
            throw ConfigError(path: path, line: nil, message: error.message)
        }
        if let line = firstInvalidUTF8Line(bytes) {
            throw ConfigError(path: path, line: line, message: "the file is not valid UTF-8")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// 1-based line of the first byte sequence that is not UTF-8, or nil when all is valid.
    static func firstInvalidUTF8Line(_ bytes: [UInt8]) -> Int? {
        var line = 1
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" {
                    line += 1
                }
            case .emptyInput:
                return nil
            case .error:
                return line
            }
        }
    }
}

/// Turns the parsed TOML tree into the model, layering settings:
/// built-in defaults → `[gestures]` → `[device.gestures]` → a region's own overrides.
struct ConfigurationDecoder {
    let path: String

    private static let topLevelKeys = ["daemon", "gestures", "touch", "geometry", "region", "device"]
    /// Regions in one list (the top level's, or one device's). With `maximumDevices`, this
    /// bounds the regions a file can make the daemon build (every device entry with its own
    /// `[device.gestures]` gets its own copy of the top-level regions) to 65 536 + 1024.
    static let maximumRegions = 1024
    /// `[[device]]` entries.
    static let maximumDevices = 64
    private static let regionKeys = ["name", "rect"]
    private static let compositionKeys = Schema.regionComposition.map(\.key)

    func decode(_ root: TOMLTable) throws(ConfigError) -> Configuration {
        let top = Place(path: path, table: "the top level")
        for key in root.keys where !Self.topLevelKeys.contains(key) {
            let line = root[key]?.line ?? 1
            throw top.error(
                "unknown key '\(key)' at the top level\(suggestion(for: key, among: Self.topLevelKeys)); tables are \(quotedList(Self.topLevelKeys))",
                line: line)
        }
        var config = Configuration()
        if let node = root["daemon"] {
            let daemon = try table(node, key: "daemon", place: top)
            try ConfigFile.decode(daemon, with: Schema.daemon, into: &config, place: top.inTable("[daemon]"))
        }
        if let node = root["gestures"] {
            let gestures = try table(node, key: "gestures", place: top)
            try ConfigFile.decode(
                gestures, with: Schema.gestures(prefix: "gestures"), into: &config.engine.defaults, place: top.inTable("[gestures]"))
        }
        if let node = root["touch"] {
            let touch = try table(node, key: "touch", place: top)
            var overrides = TouchHygieneOverrides()
            try ConfigFile.decode(touch, with: Schema.touch, into: &overrides, place: top.inTable("[touch]"))
            config.touch = overrides.applied(to: config.touch)
        }
        if let node = root["geometry"] {
            let geometry = try table(node, key: "geometry", place: top)
            try ConfigFile.decode(geometry, with: Schema.geometry, into: &config.defaultGeometry, place: top.inTable("[geometry]"))
        }
        let regionTables = try root["region"].map { node throws(ConfigError) in try Values.tables(node, key: "region", place: top) } ?? []
        config.engine.regions = try regions(regionTables, base: config.engine.defaults, prefix: "region")
        if let node = root["device"] {
            let deviceTables = try Values.tables(node, key: "device", place: top)
            if deviceTables.count > Self.maximumDevices {
                let line = deviceTables[Self.maximumDevices].line
                throw top.error(
                    "more than \(Self.maximumDevices) [[device]] entries (this is number \(Self.maximumDevices + 1))", line: line)
            }
            for deviceTable in deviceTables {
                config.devices.append(try device(deviceTable, config: config, topLevelRegions: regionTables))
            }
        }
        return config
    }

    private func device(_ table: TOMLTable, config: Configuration, topLevelRegions: [TOMLTable]) throws(ConfigError) -> DeviceSettings {
        let place = Place(path: path, table: "[[device]]")
        var device = DeviceSettings(match: DeviceMatch())
        device.geometry = config.defaultGeometry
        try ConfigFile.decode(table, with: Schema.device, into: &device, place: place, handledElsewhere: ["gestures", "region"])
        guard device.match.name != nil || device.match.usbID != nil || device.match.path != nil else {
            throw place.error(
                "[[device]] needs at least one of 'match-name', 'match-id', 'match-path' (match-name = \"*\" matches every device)",
                line: table.line)
        }
        if device.wakeSwallow && !device.passThrough {
            throw place.invalid(
                "wake-swallow", "needs pass-through = true: only a touch the daemon passes on can be swallowed",
                line: table["wake-swallow"]?.line ?? table.line)
        }
        for (key, isSet) in [
            ("app-fingers", device.app.fingers != nil), ("app-long-press", device.app.longPress == false),
            ("app-input", device.app.input == .pointer), ("pointer-drag", device.app.pointerDrag == .scroll),
        ]
        where isSet && !device.passThrough {
            throw place.invalid(
                key, "needs pass-through = true: it says what the pass-through clone shows", line: table[key]?.line ?? table.line)
        }
        if device.passThroughPointer && !device.passThrough {
            throw place.invalid(
                "pass-through-pointer", "needs pass-through = true: it describes the pass-through clone",
                line: table["pass-through-pointer"]?.line ?? table.line)
        }
        if device.cloneName != nil && !device.passThrough {
            throw place.invalid(
                "clone-name", "needs pass-through = true: it names the pass-through clone", line: table["clone-name"]?.line ?? table.line)
        }
        if device.cloneOrientation != .panel && !device.passThrough {
            throw place.invalid(
                "clone-orientation", "needs pass-through = true: it describes the pass-through clone",
                line: table["clone-orientation"]?.line ?? table.line)
        }
        if device.passThrough && table["grab"] != nil && !device.grab {
            throw place.invalid(
                "grab", "cannot be false with pass-through = true, which grabs the device", line: table["grab"]?.line ?? table.line)
        }
        let ownGestures = table["gestures"]
        let ownRegions = table["region"]
        guard ownGestures != nil || ownRegions != nil else {
            return device
        }
        var defaults = config.engine.defaults
        if let ownGestures {
            let gestures = try self.table(ownGestures, key: "gestures", place: place)
            try ConfigFile.decode(
                gestures, with: Schema.gestures(prefix: "device.gestures"), into: &defaults, place: place.inTable("[device.gestures]"))
        }
        let regions: [Region]
        if let ownRegions {
            regions = try self.regions(try Values.tables(ownRegions, key: "region", place: place), base: defaults, prefix: "device.region")
        } else {
            // The top-level regions, their overrides now layered on this device's gestures.
            regions = try self.regions(topLevelRegions, base: defaults, prefix: "region")
        }
        device.engine = EngineConfiguration(defaults: defaults, regions: regions)
        return device
    }

    private func regions(_ tables: [TOMLTable], base: GestureSettings, prefix: String) throws(ConfigError) -> [Region] {
        if tables.count > Self.maximumRegions {
            throw ConfigError(
                path: path, line: tables[Self.maximumRegions].line,
                message: "more than \(Self.maximumRegions) [[\(prefix)]] entries (this is number \(Self.maximumRegions + 1))")
        }
        var regions: [Region] = []
        var nameLines: [String: Int] = [:]
        // Built once per list, not per region: the fields and their messages cost more to
        // build than a region costs to decode.
        let fields = Schema.gestures(prefix: prefix)
        let fieldKeys = fields.map(\.key)
        for table in tables {
            var place = Place(path: path, table: "[[\(prefix)]]")
            guard let nameNode = table["name"] else {
                throw place.error("[[\(prefix)]] needs a 'name'", line: table.line)
            }
            let name = try Values.string(nameNode, key: "name", place: place)
            guard !name.isEmpty else {
                throw place.invalid("name", "must not be empty", line: nameNode.line)
            }
            if let first = nameLines[name] {
                throw place.error("duplicate region name '\(name)' (first defined on line \(first))", line: nameNode.line)
            }
            nameLines[name] = nameNode.line
            place = place.inTable("[[\(prefix)]] '\(name)'")
            guard let rectNode = table["rect"] else {
                throw place.error("[[\(prefix)]] '\(name)' needs a 'rect' = [x, y, width, height]", line: table.line)
            }
            let rect = try self.rect(rectNode, place: place)
            var region = Region(name: name, rect: rect, settings: base)
            try ConfigFile.decode(
                table, with: fields, into: &region.settings, place: place, handledElsewhere: Self.regionKeys + Self.compositionKeys)
            try ConfigFile.decode(
                table, with: Schema.regionComposition, into: &region, place: place, handledElsewhere: Self.regionKeys + fieldKeys)
            try checkComposition(region, table: table, place: place)
            regions.append(region)
        }
        return regions
    }

    /// `simultaneous` and `high-priority` name kinds the region enables, and no kind twice.
    private func checkComposition(_ region: Region, table: TOMLTable, place: Place) throws(ConfigError) {
        for (key, kinds) in [("simultaneous", region.simultaneous), ("high-priority", region.highPriority)] {
            let line = table[key]?.line ?? table.line
            if let kind = kinds.sorted().first(where: { !region.settings.enabled.contains($0) }) {
                throw place.invalid(key, "lists '\(kind.rawValue)', which the region does not enable (add it to 'enabled')", line: line)
            }
        }
        if let kind = region.simultaneous.intersection(region.highPriority).sorted().first {
            let line = table["high-priority"]?.line ?? table.line
            throw place.invalid(
                "high-priority",
                "lists '\(kind.rawValue)', which 'simultaneous' lists too: a gesture either runs beside the regions inside or wins over them",
                line: line)
        }
    }

    /// `[x, y, width, height]` in normalised screen space, inside 0…1, not empty.
    private func rect(_ node: TOMLNode, place: Place) throws(ConfigError) -> Rect {
        let values = try Values.numbers(node, key: "rect", count: 4, shape: "[x, y, width, height]", place: place)
        let rect = Rect(x: values[0], y: values[1], width: values[2], height: values[3])
        let tolerance = 1e-9
        let problem: String? =
            if rect.x < 0 || rect.y < 0 { "must start inside the screen (x and y ≥ 0)" } else if rect.width <= 0 || rect.height <= 0 {
                "must have a width and height greater than 0"
            } else if rect.x + rect.width > 1 + tolerance {
                "must end inside the screen: x + width = \(format(rect.x + rect.width)) exceeds 1"
            } else if rect.y + rect.height > 1 + tolerance {
                "must end inside the screen: y + height = \(format(rect.y + rect.height)) exceeds 1"
            } else { nil }
        if let problem {
            throw place.invalid("rect", "\(problem) (rect is [x, y, width, height], normalised to 0…1)", line: node.line)
        }
        return rect
    }

    private func table(_ node: TOMLNode, key: String, place: Place) throws(ConfigError) -> TOMLTable {
        guard case .table(let table) = node.value else {
            throw place.error("'\(key)' must be a table ([\(key)]), not \(node.value.typeName)", line: node.line)
        }
        return table
    }
}
