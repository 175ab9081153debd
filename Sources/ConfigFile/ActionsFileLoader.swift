import Actions
import GestureCore
import GestureProtocol

/// Reads an actions file (`gesturectl actions`, docs/actions.md) into `ActionsFile`, with
/// the same strict TOML reader and the same `file:line: problem` errors as gestured.toml.
public enum ActionsFileLoader {
    /// `~/.config/gestured/actions.toml`, relative to the home directory given.
    public static func defaultPath(home: String) -> String {
        home + "/.config/gestured/actions.toml"
    }

    /// `[[action]]` entries in one file; more is an error (a kiosk has a handful).
    public static let maximumActions = 256

    /// Reads and parses the file at `path`; `keyCode` resolves evdev key names for `keys`.
    public static func load(path: String, keyCode: (String) -> UInt16?) throws(ConfigError) -> ActionsFile {
        try parse(text: try ConfigLoader.readText(path: path), path: path, keyCode: keyCode)
    }

    /// Parses actions text; `path` only names the file in errors.
    public static func parse(text: String, path: String, keyCode: (String) -> UInt16?) throws(ConfigError) -> ActionsFile {
        let root = try TOMLParser.parse(text, path: path)
        let top = Place(path: path, table: "the top level")
        let topKeys = ["keyboard", "action"]
        for key in root.keys where !topKeys.contains(key) {
            let line = root[key]?.line ?? 1
            throw top.error(
                "unknown key '\(key)' at the top level\(suggestion(for: key, among: topKeys)); an actions file holds 'keyboard' and [[action]] entries",
                line: line)
        }
        let keyboard =
            try root["keyboard"].map { node throws(ConfigError) in
                try Values.choice(node, key: "keyboard", KeyboardBackend.allCases.map { ($0.rawValue, $0) }, place: top)
            } ?? .default
        let tables = try root["action"].map { node throws(ConfigError) in try Values.tables(node, key: "action", place: top) } ?? []
        if tables.count > maximumActions {
            throw top.error(
                "more than \(maximumActions) [[action]] entries (this is number \(maximumActions + 1))", line: tables[maximumActions].line)
        }
        var actions: [Action] = []
        for table in tables {
            actions.append(try ActionDecoder(path: path, table: table, keyboard: keyboard).decode(keyCode: keyCode))
        }
        return ActionsFile(path: path, actions: actions, keyboard: keyboard)
    }
}

/// One `[[action]]` table into an `Action`, checking that its keys fit its gesture.
private struct ActionDecoder {
    let path: String
    let table: TOMLTable
    /// How the file's `keys` are typed: which key names they may use.
    let keyboard: KeyboardBackend

    static let keys = [
        "gesture", "phase", "region", "device", "fingers", "count", "direction", "edge", "run", "keys", "timeout", "overlap",
    ]
    /// The longest `timeout`: a day.
    static let longestTimeout = 86_400.0

    var place: Place { Place(path: path, table: "[[action]] at line \(table.line)") }

    func decode(keyCode: (String) -> UInt16?) throws(ConfigError) -> Action {
        for key in table.keys where !Self.keys.contains(key) {
            throw place.error("unknown key '\(key)' in \(place.table)\(suggestion(for: key, among: Self.keys))", line: line(key))
        }
        let trigger = try self.trigger()
        let phase = try self.phase(for: trigger)
        let filters = try self.filters(for: trigger)
        let effect = try self.effect(keyCode: keyCode)
        var action = Action(line: table.line, trigger: trigger, phase: phase, filters: filters, effect: effect)
        if let node = table["timeout"] {
            let seconds = try Values.number(node, key: "timeout", bounds: .range(0...Self.longestTimeout), place: place)
            action.timeout = seconds == 0 ? nil : .milliseconds(Int64((seconds * 1000).rounded()))
        }
        if let node = table["overlap"] {
            action.overlap = try Values.choice(node, key: "overlap", Action.Overlap.allCases.map { ($0.rawValue, $0) }, place: place)
        }
        if case .keys = effect {
            for key in ["timeout", "overlap"] where table[key] != nil {
                throw place.invalid(key, "applies only to 'run' (typing keys takes no time)", line: line(key))
            }
        }
        return action
    }

    private func line(_ key: String) -> Int {
        table[key]?.line ?? table.line
    }

    private func trigger() throws(ConfigError) -> Action.Trigger {
        let names = Action.Trigger.all.map(\.description)
        guard let node = table["gesture"] else {
            throw place.error("[[action]] needs a 'gesture': one of \(quotedList(names))", line: table.line)
        }
        return try Values.choice(node, key: "gesture", Action.Trigger.all.map { ($0.description, $0) }, place: place)
    }

    private func phase(for trigger: Action.Trigger) throws(ConfigError) -> GesturePhase? {
        guard let node = table["phase"] else { return trigger.defaultPhase }
        let phases = trigger.phases
        guard !phases.isEmpty else {
            throw place.invalid("phase", "does not apply to '\(trigger)' (it has no phases)", line: node.line)
        }
        let text = try Values.string(node, key: "phase", place: place)
        let names = phases.map(\.rawValue)
        guard let phase = GesturePhase(rawValue: text), phases.contains(phase) else {
            let all = GesturePhase.allCases.map(\.rawValue)
            let known = GesturePhase(rawValue: text) != nil ? "" : suggestion(for: text, among: all)
            throw place.invalid(
                "phase", "must be \(phases.count == 1 ? "" : "one of ")\(quotedList(names)) for '\(trigger)', not '\(text)'\(known)",
                line: node.line)
        }
        return phase
    }

    private func filters(for trigger: Action.Trigger) throws(ConfigError) -> Action.Filters {
        var filters = Action.Filters()
        let isGesture: Bool
        switch trigger {
        case .gesture: isGesture = true
        case .idle, .active: isGesture = false
        }
        let gestureKeys = ["region", "device", "fingers", "count", "direction", "edge"]
        if !isGesture, let key = gestureKeys.first(where: { table[$0] != nil }) {
            throw place.invalid(key, "does not apply to '\(trigger)' (activity changes have no \(key))", line: line(key))
        }
        if let node = table["region"] {
            filters.region = try nonEmptyString(node, key: "region")
        }
        if let node = table["device"] {
            filters.device = try nonEmptyString(node, key: "device")
        }
        if let node = table["fingers"] {
            filters.fingers = try Values.integer(node, key: "fingers", range: 1...10, place: place)
        }
        if let node = table["count"] {
            guard trigger == .gesture(.tap) else {
                throw place.invalid("count", "applies only to 'tap' (the tap count)", line: node.line)
            }
            filters.count = try Values.integer(node, key: "count", range: 1...20, place: place)
        }
        if let node = table["direction"] {
            guard trigger == .gesture(.swipe) else {
                throw place.invalid("direction", "applies only to 'swipe'", line: node.line)
            }
            filters.direction = try Values.choice(node, key: "direction", SwipeDirection.allCases.map { ($0.rawValue, $0) }, place: place)
        }
        if let node = table["edge"] {
            guard trigger == .gesture(.swipe) || trigger == .gesture(.drag) else {
                throw place.invalid("edge", "applies only to 'swipe' and 'drag' (the screen edge they started from)", line: node.line)
            }
            filters.edge = try Values.choice(node, key: "edge", ScreenEdge.allCases.map { ($0.rawValue, $0) }, place: place)
        }
        return filters
    }

    private func effect(keyCode: (String) -> UInt16?) throws(ConfigError) -> Action.Effect {
        switch (table["run"], table["keys"]) {
        case (nil, nil):
            throw place.error(
                "[[action]] needs 'run' (a command: [\"program\", \"argument\", …]) or 'keys' ([\"KEY_LEFTCTRL+KEY_R\"])", line: table.line)
        case (.some, .some):
            throw place.invalid("keys", "cannot be given with 'run': an action either runs a command or types keys", line: line("keys"))
        case (.some(let node), nil):
            let argv = try strings(node, key: "run")
            guard let program = argv.first, !program.isEmpty else {
                throw place.invalid("run", "must name a program: [\"program\", \"argument\", …] (run through no shell)", line: node.line)
            }
            return .run(argv)
        case (nil, .some(let node)):
            let texts = try strings(node, key: "keys")
            guard !texts.isEmpty else {
                throw place.invalid("keys", "must list at least one chord, e.g. [\"KEY_LEFTCTRL+KEY_R\"]", line: node.line)
            }
            var chords: [KeyChord] = []
            for text in texts {
                do {
                    chords.append(try KeyChord.parse(text, keyCode: keyCode, keyboard: keyboard))
                } catch {
                    throw place.invalid("keys", "'\(text)' \(error)", line: node.line)
                }
            }
            return .keys(chords)
        }
    }

    /// An array of strings without NUL bytes (they cannot reach a program's argv).
    private func strings(_ node: TOMLNode, key: String) throws(ConfigError) -> [String] {
        var strings: [String] = []
        for element in try Values.array(node, key: key, place: place) {
            guard case .string(let text) = element.value else {
                throw place.invalid(key, "must be an array of strings, but holds \(element.value.typeName)", line: element.line)
            }
            guard !text.utf8.contains(0) else {
                throw place.invalid(key, "must not contain a NUL character (\\u0000)", line: element.line)
            }
            strings.append(text)
        }
        return strings
    }

    private func nonEmptyString(_ node: TOMLNode, key: String) throws(ConfigError) -> String {
        let text = try Values.string(node, key: key, place: place)
        guard !text.isEmpty else {
            throw place.invalid(key, "must not be empty", line: node.line)
        }
        return text
    }
}
