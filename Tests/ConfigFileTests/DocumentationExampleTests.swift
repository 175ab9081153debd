import GestureCore
import Testing

@testable import ConfigFile

@Suite struct DocumentationExampleTests {
    @Test func everyTOMLExampleInTheConfigurationGuideLoads() throws {
        let guide = repositoryFile("docs/configuration.md")
        let text = try ConfigLoader.readText(path: guide)
        var blocks: [String] = []
        var current: [Substring]? = nil
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "```toml" {
                current = []
            } else if line == "```", let block = current {
                blocks.append(block.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        #expect(blocks.count == 7)
        let kioskHygiene = try ConfigLoader.parse(text: blocks.removeFirst(), path: "touch hygiene on public kiosks")
        #expect(
            kioskHygiene.touch
                == TouchHygieneSettings(
                    debounce: .milliseconds(60), stuckAfter: .seconds(30), phantom: .suppress, shortestContact: .milliseconds(1)))
        let selection = try ConfigLoader.parse(text: blocks[0], path: "selection example")
        let wanted = selection.settings(
            forDevice: "ELAN Touchscreen", vendor: 0x04f3, product: 0x010c,
            paths: ["/dev/input/event5", "/dev/input/by-id/usb-ELAN_Touchscreen-event-if00"])
        #expect(wanted.enabled && wanted.grab)
        #expect(!selection.settings(forDevice: "Atmel maXTouch Touchscreen", vendor: 0, product: 0, paths: ["/dev/input/event6"]).enabled)
        let kiosk = try ConfigLoader.parse(text: blocks[1], path: "kiosk example")
        #expect(kiosk.engine.regions.map(\.name) == ["exit-edge"])
        #expect(kiosk.devices.first?.grab == true)
        let button = try ConfigLoader.parse(text: blocks[2], path: "button example")
        #expect(button.engine.regions.first?.settings.tap.exclusive == true)
        #expect(button.engine.regions.first?.settings.tap.maxCount == 2)
        let passThrough = try ConfigLoader.parse(text: blocks[5], path: "pass-through kiosk example")
        let elan = passThrough.settings(forDevice: "ELAN Touchscreen", vendor: 0x04f3, product: 0x010c, paths: [])
        #expect(elan.passThrough && elan.wakeSwallow && elan.grab)
        #expect(elan.engine.regions.filter(\.reserve).map(\.name) == ["exit-edge", "operator-corner"])
        // The worked examples (their behaviour is replayed in DaemonTests/ComposedReplayTests).
        let page = try ConfigLoader.parse(text: blocks[3], path: "page of buttons example")
        #expect(page.engine.regions.map(\.name) == ["page", "play", "next", "row"])
        let corner = try ConfigLoader.parse(text: blocks[4], path: "hidden corner example")
        #expect(corner.engine.regions[0].highPriority == [.longPress])
        #expect(corner.engine.regions[2].fallThrough == false)
    }
}
