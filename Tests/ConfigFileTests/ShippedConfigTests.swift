import GestureCore
import Testing

@testable import ConfigFile

/// A file of the repository, found relative to this source file.
func repositoryFile(_ relativePath: String) -> String {
    var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    components.removeLast(3)  // Tests/ConfigFileTests/ShippedConfigTests.swift
    return (components + [Substring(relativePath)]).joined(separator: "/")
}

let shippedConfigPath = repositoryFile("config/gestured.toml")

@Suite struct ShippedConfigTests {
    @Test func shippedFileLoadsToExactlyTheDefaults() throws {
        let configuration = try ConfigLoader.load(path: shippedConfigPath)
        #expect(configuration == Configuration())
    }

    @Test func shippedFileSetsEveryKeyOfTheSchema() throws {
        let text = try ConfigLoader.readText(path: shippedConfigPath)
        let lines = text.split(separator: "\n").map { $0.trimmingPrefix(while: { $0 == " " }) }
        let keys =
            Schema.daemon.map(\.key) + Schema.gestures(prefix: "gestures").map(\.key)
            + Schema.tap.map(\.key) + Schema.longPress.map(\.key) + Schema.drag.map(\.key)
            + Schema.swipe.map(\.key) + Schema.pinch.map(\.key) + Schema.rotate.map(\.key)
            + Schema.geometry.map(\.key) + Schema.touch.map(\.key)
        let tables = ["long-press", "drag", "swipe", "pinch", "rotate", "tap"]
        // Keys whose default is "unset" (calibration: udev's, else the identity; socket:
        // $GESTURED_SOCKET, else /run/gestured/gestured.sock) are shown commented out with
        // the value they then take.
        let unsetByDefault = ["calibration", "socket"]
        for key in keys where !tables.contains(key) {
            let line = unsetByDefault.contains(key) ? "# \(key) = " : "\(key) = "
            #expect(lines.contains { $0.hasPrefix(line) }, "no '\(line)' line in config/gestured.toml")
        }
        for table in tables {
            #expect(lines.contains("[gestures.\(table)]"))
        }
    }

    @Test func everyCommentedExampleInTheShippedFileIsValid() throws {
        // Uncomment the example region and device blocks and check they load.
        let text = try ConfigLoader.readText(path: shippedConfigPath)
        var uncommented: [String] = []
        var inExamples = false
        var section = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# [[region]]") || line.hasPrefix("# [[device]]") {
                inExamples = true
                section += 1
            }
            if inExamples, line.hasPrefix("# ") || line == "#" {
                let body = line.dropFirst(line == "#" ? 1 : 2)
                let words = body.split(separator: " ", maxSplits: 2)
                let isCode = body.hasPrefix("[") || (words.count > 1 && words[1] == "=")
                uncommented.append(isCode ? String(body) : "")
            } else {
                uncommented.append(String(line))
            }
        }
        #expect(section == 3)
        let configuration = try ConfigLoader.parse(text: uncommented.joined(separator: "\n"), path: "examples.toml")
        #expect(configuration.engine.regions.map(\.name) == ["exit", "ok-button"])
        #expect(configuration.engine.regions[1].settings.tap.exclusive)
        #expect(configuration.devices.count == 1)
        #expect(configuration.devices[0].geometry.rotation == .quarter)
        #expect(configuration.devices[0].engine?.regions.map(\.name) == ["whole-screen"])
        #expect(configuration.devices[0].engine?.defaults.tap.slop == 4.0)
        #expect(configuration.devices[0].touch.stuckAfter == .seconds(30))
    }
}
