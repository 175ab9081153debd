import ConfigFile
import GestureCore
import Testing

@Suite struct DeviceMatchingTests {
    @Test(arguments: [
        ("*", "anything", true), ("*", "", true), ("ELAN*", "ELAN Touchscreen", true),
        ("ELAN*", "eGalax", false), ("*Touch*", "ELAN Touchscreen", true), ("?LAN", "ELAN", true),
        ("?LAN", "LAN", false), ("a*b*c", "aXXbYYc", true), ("a*b*c", "aXXbYY", false),
        ("a*c", "abcbc", true), ("exact", "exact", true), ("exact", "exactly", false), ("", "", true),
        ("Wacom *Finger", "Wacom HID 52C2 Finger", true), ("Wacom *Finger", "Wacom HID 52C2 Pen", false),
    ])
    func glob(_ pattern: String, _ text: String, _ expected: Bool) {
        #expect(Glob.matches(pattern: pattern, text) == expected)
    }

    @Test func everyGivenCriterionMustMatch() {
        let match = DeviceMatch(name: "ELAN*", usbID: "04F3:010c", path: "/dev/input/by-id/*ELAN*")
        let paths = ["/dev/input/event5", "/dev/input/by-id/usb-ELAN_Touch-event-if00"]
        #expect(match.matches(name: "ELAN Touchscreen", vendor: 0x04f3, product: 0x010c, paths: paths))
        #expect(!match.matches(name: "eGalax", vendor: 0x04f3, product: 0x010c, paths: paths))
        #expect(!match.matches(name: "ELAN Touchscreen", vendor: 0x04f3, product: 0x010d, paths: paths))
        #expect(!match.matches(name: "ELAN Touchscreen", vendor: 0x04f3, product: 0x010c, paths: ["/dev/input/event5"]))
        #expect(DeviceMatch().matches(name: "x", vendor: 0, product: 0, paths: []))
    }

    @Test func usbIDParsing() {
        #expect(DeviceMatch.parseUSBID("04f3:010c")! == (0x04f3, 0x010c))
        #expect(DeviceMatch.parseUSBID("1:2")! == (1, 2))
        for bad in ["04f3", "04f3:", ":010c", "04f3:010c:1", "12345:1", "g4f3:010c", "04f3-010c"] {
            #expect(DeviceMatch.parseUSBID(bad) == nil, "\(bad)")
        }
    }

    @Test func firstMatchingEntryApplies() throws {
        let config = try ConfigLoader.parse(
            text: """
                [geometry]
                rotation = 90
                [[region]]
                name = "top"
                rect = [0, 0, 1, 1]
                [[device]]
                match-name = "Pad*"
                enabled = false
                [[device]]
                match-id = "04f3:010c"
                grab = true
                rotation = 270
                [device.gestures.tap]
                slop = 5
                [[device]]
                match-name = "*"
                rotation = 180
                """, path: "test.toml")

        let pad = config.settings(forDevice: "Pad 1", vendor: 0x04f3, product: 0x010c, paths: [])
        #expect(!pad.enabled)
        #expect(pad.matchedEntry == 0)

        let elan = config.settings(forDevice: "ELAN", vendor: 0x04f3, product: 0x010c, paths: [])
        #expect(elan.enabled && elan.grab)
        #expect(elan.matchedEntry == 1)
        #expect(elan.geometry.rotation == .threeQuarters)
        #expect(elan.engine.defaults.tap.slop == 5)
        #expect(elan.engine.regions[0].settings.tap.slop == 5)

        let other = config.settings(forDevice: "eGalax", vendor: 1, product: 2, paths: [])
        #expect(other.matchedEntry == 2)
        #expect(!other.grab)
        #expect(other.geometry.rotation == .half)
        #expect(other.engine == config.engine)
    }

    @Test func unmatchedDeviceGetsTopLevelSettings() throws {
        let config = try ConfigLoader.parse(
            text: "[geometry]\nrotation = 90\n[[device]]\nmatch-name = \"x\"\ngrab = true\n", path: "test.toml")
        let settings = config.settings(forDevice: "y", vendor: 0, product: 0, paths: ["/dev/input/event0"])
        #expect(
            settings
                == ResolvedDeviceSettings(
                    enabled: true, grab: false, geometry: config.defaultGeometry, engine: config.engine, matchedEntry: nil))
        #expect(settings.geometry.rotation == .quarter)
    }
}
