import Foundation

/// The kiosk guide's recipes (docs/kiosk.md), read from the guide itself so that the tier
/// runs exactly what the guide tells an operator to run. Each recipe is the fenced block
/// after a marker comment `<!-- kiosk tier: COMPOSITOR -->`:
/// - a systemd unit (cage): its `ExecStart=` line is the compositor, its flags, `--`, and
///   the Chromium command line;
/// - a sway configuration: its `exec` line is the Chromium command line, its other lines
///   (not comments) the compositor's configuration;
/// - a labwc autostart file (labwc): its line running `chromium … &` is the Chromium command
///   line, its other lines (not comments) go into the autostart file before it.
/// cage 0.2.0 runs cage's recipe unless the guide gives one marked `cage2`. Raspberry Pi OS's
/// session (`raspios`) runs a labwc autostart of its own, with the files marked
/// `raspios rc.xml` (the user's `~/.config/labwc/rc.xml`) and `raspios gestured.toml`, and
/// the autostart lines marked `raspios actions runner` (`gesturectl actions`) before the
/// browser's. The guide's recommended touch hygiene is the `[touch]` table after `<!-- kiosk
/// tier: touch hygiene -->`.
/// Commands are plain words (no quotes, variables or escapes), which the tier passes on as
/// they are.
struct KioskGuide {
    /// A compositor's recipe: its own setup and the browser's command line.
    struct Recipe: Equatable {
        var setup: CompositorSetup
        /// Program, flags and the operator's URL.
        let chromium: [String]
    }

    let path: String
    private let text: String

    init(path: String) throws(CaseFailure) {
        self.path = path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw CaseFailure("cannot read \(path)") }
        self.text = text
    }

    /// The markers of `compositor`'s recipe, the first the guide has being the one: its own
    /// (`cage2`: cage 0.2.0's), then its program's (`cage`).
    static func markers(_ compositor: CompositorKind) -> [String] {
        let names = compositor.rawValue == compositor.program ? [compositor.program] : [compositor.rawValue, compositor.program]
        return names.map { "<!-- kiosk tier: \($0) -->" }
    }

    /// The recipe the guide gives for `compositor`; fails when it gives none or one the tier
    /// cannot run as written.
    func recipe(for compositor: CompositorKind) throws(CaseFailure) -> Recipe {
        guard let block = Self.markers(compositor).lazy.compactMap({ block(after: $0) }).first else {
            throw CaseFailure(
                "\(path) has no recipe for \(compositor.rawValue) (a fenced block after \(Self.markers(compositor).joined(separator: " or ")))"
            )
        }
        var recipe = try Self.recipe(block: block.map { $0.trimmingCharacters(in: .whitespaces) }, compositor: compositor, path: path)
        if compositor == .raspios {
            recipe.setup.homeFiles[RaspberryPiOS.userRCXML] = try file("raspios rc.xml")
            recipe.setup.configLines += try autostartLines("raspios actions runner")
        }
        return recipe
    }

    /// The lines of a labwc autostart the guide gives after `<!-- kiosk tier: NAME -->`
    /// (comments left out), each plain words ending with `&`, as every long-running line of
    /// the script must; fails when the guide gives none.
    func autostartLines(_ name: String) throws(CaseFailure) -> [String] {
        let lines = try file(name).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty && !$0.hasPrefix("#")
        }
        guard !lines.isEmpty else { throw CaseFailure("\(path): the \(name) block has no line to run") }
        for line in lines {
            let command = try Self.words(line, what: "the \(name) line", path: path)
            guard command.last == "&" else { throw CaseFailure("\(path): the \(name) line does not end with &: \(line)") }
        }
        return lines
    }

    /// `line` split into words; fails when it is not plain words (quotes, variables or
    /// escapes, which the tier would pass on unexpanded).
    static func words(_ line: String, what: String, path: String) throws(CaseFailure) -> [String] {
        guard !line.contains(where: { "'\"\\$`".contains($0) }) else {
            throw CaseFailure("\(path): \(what) \"\(line)\" is not plain words")
        }
        return line.split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// The marker of the guide's recommended touch hygiene (a `[touch]` table of
    /// gestured.toml).
    static let touchHygieneMarker = "<!-- kiosk tier: touch hygiene -->"

    /// The guide's recommended `[touch]` table, its lines as written; fails when the guide
    /// has none.
    func touchHygiene() throws(CaseFailure) -> String {
        guard let block = block(after: Self.touchHygieneMarker), block.first?.trimmingCharacters(in: .whitespaces) == "[touch]"
        else {
            throw CaseFailure("\(path) has no [touch] table in a fenced block after \(Self.touchHygieneMarker)")
        }
        return block.joined(separator: "\n")
    }

    /// The file the guide gives after `<!-- kiosk tier: NAME -->`, as written (its first line
    /// is a comment naming where it goes, in the file's own comment syntax).
    func file(_ name: String) throws(CaseFailure) -> String {
        guard let block = block(after: "<!-- kiosk tier: \(name) -->") else {
            throw CaseFailure("\(path) has no \(name) (a fenced block after <!-- kiosk tier: \(name) -->)")
        }
        return block.joined(separator: "\n") + "\n"
    }

    /// The lines of the fenced block after the line `marker`, nil when there is none.
    private func block(after marker: String) -> [String]? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let markerLine = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == marker }),
            let open = lines[markerLine...].firstIndex(where: { $0.hasPrefix("```") }),
            let close = lines[(open + 1)...].firstIndex(where: { $0.hasPrefix("```") })
        else { return nil }
        return Array(lines[(open + 1)..<close])
    }

    static func recipe(block: [String], compositor: CompositorKind, path: String) throws(CaseFailure) -> Recipe {
        func words(_ line: String) throws(CaseFailure) -> [String] {
            try Self.words(line, what: "the \(compositor.rawValue) recipe's line", path: path)
        }
        if let exec = block.first(where: { $0.hasPrefix("ExecStart=") }) {
            let command = try words(String(exec.dropFirst("ExecStart=".count)))
            guard let program = command.first, (program as NSString).lastPathComponent == compositor.program,
                let separator = command.firstIndex(of: "--"), separator + 1 < command.count
            else {
                throw CaseFailure(
                    "\(path): the \(compositor.rawValue) unit's ExecStart is not \(compositor.rawValue) [FLAGS] -- BROWSER …: \(exec)")
            }
            return Recipe(
                setup: CompositorSetup(arguments: Array(command[1..<separator])), chromium: Array(command[(separator + 1)...]))
        }
        var configLines: [String] = []
        var chromium: [String]?
        if compositor.program == "labwc" {
            for line in block where !line.isEmpty && !line.hasPrefix("#") {
                let command = try words(line)
                if let program = command.first, (program as NSString).lastPathComponent == "chromium" {
                    guard chromium == nil else { throw CaseFailure("\(path): the labwc autostart runs chromium twice") }
                    // As every long-running line of an autostart script: in the background.
                    guard command.last == "&" else {
                        throw CaseFailure("\(path): the labwc autostart's chromium line does not end with &: \(line)")
                    }
                    chromium = Array(command.dropLast())
                } else {
                    configLines.append(line)
                }
            }
            guard let chromium, !chromium.isEmpty else { throw CaseFailure("\(path): the labwc autostart runs no chromium") }
            return Recipe(setup: CompositorSetup(configLines: configLines), chromium: chromium)
        }
        for line in block where !line.isEmpty && !line.hasPrefix("#") {
            if line.hasPrefix("exec ") {
                guard chromium == nil else { throw CaseFailure("\(path): the \(compositor.rawValue) recipe has two exec lines") }
                // sway splits a configuration line into commands at , and ; (outside quotes).
                guard !line.contains(",") && !line.contains(";") else {
                    throw CaseFailure(
                        "\(path): the \(compositor.rawValue) recipe's exec line has , or ;, where sway ends the command: \(line)")
                }
                chromium = Array(try words(line).dropFirst())
            } else {
                configLines.append(line)
            }
        }
        guard let chromium, !chromium.isEmpty else {
            throw CaseFailure("\(path): the \(compositor.rawValue) recipe has neither an ExecStart= nor an exec line")
        }
        return Recipe(setup: CompositorSetup(configLines: configLines), chromium: chromium)
    }
}
