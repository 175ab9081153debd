import ArgumentParser
import ConfigFile
import EvdevInput
import GestureCore

/// `gestured check-config [FILE]`: validates a configuration file without starting anything.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validates a configuration file.",
        discussion: """
            Prints 'FILE: OK' and a summary, or the first problem as FILE:LINE: MESSAGE and exits 1. \
            With pass-through entries, also warns of each touchscreen present that no [[device]] entry matches.
            """
    )

    @Argument(help: "The configuration file.")
    var file: String = ConfigLoader.defaultPath

    func run() throws {
        let configuration: Configuration
        do {
            configuration = try ConfigLoader.load(path: file)
        } catch {
            printError(error.description)
            throw ExitCode.failure
        }
        print(DisplayText.escaped("\(file): OK"))
        for line in Self.summary(of: configuration) {
            print("  \(DisplayText.escaped(line))")  // region and device names come from the file
        }
        for line in Self.deviceWarnings(configuration) {
            print("  \(DisplayText.escaped(line))")  // device names come from the kernel
        }
    }

    /// With pass-through entries: a warning for each touchscreen present that no entry
    /// matches, and how many nodes could not be opened to tell. Nothing to say without
    /// such entries or without an input directory.
    static func deviceWarnings(_ configuration: Configuration) -> [String] {
        guard UnmatchedTouchscreen.concerns(configuration), case .nodes(let nodes)? = try? DeviceDiscovery.scan() else { return [] }
        let reports = nodes.map { DeviceReport.probe($0, configuration: configuration) }
        var lines = reports.compactMap { report in report.unmatchedTouchscreen.map { "warning: \($0.message) (\(report.node.path))" } }
        let unopened = reports.filter { if case .failure = $0.opened { true } else { false } }.count
        if unopened > 0 {
            lines.append(
                "\(unopened) input device\(unopened == 1 ? "" : "s") could not be opened to check against the [[device]] entries"
                    + " (run as root, or as a member of group input)")
        }
        return lines
    }

    /// A few lines saying what the file configures.
    static func summary(of configuration: Configuration) -> [String] {
        var lines = ["socket \(configuration.daemon.socket)", "top level: \(describe(configuration.engine))"]
        if configuration.touch.isActive { lines.append("touch hygiene: \(describe(configuration.touch))") }
        if configuration.devices.isEmpty {
            lines.append("no [[device]] entries: every device uses the top level")
        }
        for (index, device) in configuration.devices.enumerated() {
            let match = [
                device.match.name.map { "name \"\($0)\"" },
                device.match.usbID.map { "id \($0)" },
                device.match.path.map { "path \($0)" },
            ].compactMap { $0 }.joined(separator: ", ")
            var line = "device #\(index + 1) (\(match)): "
            if !device.enabled {
                line += "ignored"
            } else {
                if device.passThrough {
                    let keys = [
                        device.wakeSwallow ? "wake-swallow" : nil,
                        device.app.fingers.map { "app-fingers \($0)" },
                        device.app.longPress == false ? "app-long-press false" : nil,
                        device.app.input.map { "app-input \($0.rawValue)" },
                        device.app.pointerDrag.map { "pointer-drag \($0.rawValue)" },
                    ].compactMap { $0 }
                    line += keys.isEmpty ? "pass-through, " : "pass-through (\(keys.joined(separator: ", "))), "
                } else {
                    line += device.grab ? "grabbed, " : ""
                }
                line += device.engine.map(describe) ?? "top-level gestures and regions"
                let touch = device.touch.applied(to: configuration.touch)
                if touch != configuration.touch { line += "; touch hygiene: \(describe(touch))" }
            }
            lines.append(line)
        }
        return lines
    }

    /// `debounce 60 ms, stuck-after 30 s, phantom suppress`, or `off`.
    private static func describe(_ touch: TouchHygieneSettings) -> String {
        let parts = [
            touch.debounce == .zero ? nil : "debounce \(DeviceGeometry.shortNumber(touch.debounce.milliseconds)) ms",
            touch.ignoreRepeat == .zero ? nil : "ignore-repeat \(DeviceGeometry.shortNumber(touch.ignoreRepeat.milliseconds)) ms",
            touch.holdDuration == .zero ? nil : "hold-duration \(DeviceGeometry.shortNumber(touch.holdDuration.milliseconds)) ms",
            touch.stuckAfter == .zero ? nil : "stuck-after \(DeviceGeometry.shortNumber(touch.stuckAfter.seconds)) s",
            touch.phantom == .off ? nil : "phantom \(touch.phantom.rawValue)",
            touch.shortestContact == .zero ? nil : "shortest-contact \(DeviceGeometry.shortNumber(touch.shortestContact.milliseconds)) ms",
        ].compactMap { $0 }
        return parts.isEmpty ? "off" : parts.joined(separator: ", ")
    }

    /// `2 regions (exit, page)`; a region that sets app keys names them: `page: app-fingers 1`.
    private static func describe(_ engine: EngineConfiguration) -> String {
        let regions = engine.regions.map { region in
            let keys = [
                region.app.fingers.map { "app-fingers \($0)" },
                region.app.longPress.map { "app-long-press \($0)" },
                region.app.input.map { "app-input \($0.rawValue)" },
                region.app.pointerDrag.map { "pointer-drag \($0.rawValue)" },
            ].compactMap { $0 }
            return keys.isEmpty ? region.name : "\(region.name): \(keys.joined(separator: ", "))"
        }
        let count = regions.count == 1 ? "1 region" : "\(regions.count) regions"
        return regions.isEmpty ? "no regions" : "\(count) (\(regions.joined(separator: ", ")))"
    }
}
