import EvdevInput
import GestureCore
import Testing

/// A touchscreen the `[[device]]` entries miss while others pass through is reported, with
/// a `match-name` that would catch it; everything else is not.
@Suite struct UnmatchedTouchscreenTests {
    /// The official 7" display as the Raspberry Pi kernel names it on some boards.
    static let ft5406 = renamed(CorpusDevices.elan, "10-0038 generic ft5x06 (00)")
    static let node = DeviceNode(path: "/dev/input/event4", number: 4)

    static func renamed(_ description: DeviceDescription, _ name: String) -> DeviceDescription {
        var description = description
        description.name = name
        return description
    }

    static func configuration(_ entries: [(name: String, passThrough: Bool, enabled: Bool)]) -> Configuration {
        var configuration = Configuration()
        configuration.devices = entries.map { entry in
            var settings = DeviceSettings(match: DeviceMatch(name: entry.name))
            settings.passThrough = entry.passThrough
            settings.enabled = entry.enabled
            return settings
        }
        return configuration
    }

    func check(_ description: DeviceDescription, _ configuration: Configuration) -> UnmatchedTouchscreen? {
        let settings = configuration.settings(for: description, paths: [Self.node.path])
        return UnmatchedTouchscreen.check(description, settings: settings, in: configuration)
    }

    @Test func theGuidesOldPatternMissesThe00Variant() throws {
        let configuration = Self.configuration([("*generic ft5x06 (79)", true, true)])
        let unmatched = try #require(check(Self.ft5406, configuration))
        #expect(unmatched.deviceName == "10-0038 generic ft5x06 (00)")
        #expect(unmatched.suggestedPattern == "*generic ft5x06 (*)")
        #expect(
            unmatched.message
                == "touchscreen \"10-0038 generic ft5x06 (00)\" matches no [[device]] entry, so it is not passed through;"
                + " match-name = \"*generic ft5x06 (*)\" would match it")
        // The suggestion, put in the entry, matches: nothing is reported any more.
        #expect(check(Self.ft5406, Self.configuration([(unmatched.suggestedPattern, true, true)])) == nil)
    }

    @Test func nothingToSayWithoutAnEnabledPassThroughEntry() {
        #expect(check(Self.ft5406, Configuration()) == nil)
        #expect(check(Self.ft5406, Self.configuration([("ELAN*", false, true)])) == nil)
        #expect(check(Self.ft5406, Self.configuration([("ELAN*", true, false)])) == nil)
        #expect(!UnmatchedTouchscreen.concerns(Self.configuration([("ELAN*", true, false)])))
        #expect(UnmatchedTouchscreen.concerns(Self.configuration([("ELAN*", true, true)])))
    }

    @Test func anyMatchingEntrySilencesIt() {
        // A catch-all that turns the rest off, or one that reads it without pass-through,
        // is a choice the file made.
        #expect(check(Self.ft5406, Self.configuration([("ELAN*", true, true), ("*", false, false)])) == nil)
        #expect(check(Self.ft5406, Self.configuration([("ELAN*", true, true), ("*ft5x06*", false, true)])) == nil)
    }

    @Test func onlyTouchscreensAndNeverGesturedsClones() {
        let configuration = Self.configuration([("ELAN*", true, true)])
        var touchpads = configuration
        touchpads.useTouchpads = true
        #expect(check(CorpusDevices.synaptics, touchpads) == nil)
        #expect(check(CorpusDevices.keyboard, configuration) == nil)
        let clone = PassThroughClone.description(cloning: Self.ft5406, node: "/dev/input/event4", keepPointer: false)
        #expect(check(clone, configuration) == nil)
        #expect(check(CorpusDevices.atmel, configuration)?.deviceName == CorpusDevices.atmel.name)
    }

    @Test(arguments: [
        ("10-0038 generic ft5x06 (79)", "*generic ft5x06 (*)"),
        ("11-0038 generic ft5x06 (00)", "*generic ft5x06 (*)"),
        ("4-005d Goodix Capacitive TouchScreen", "*Goodix Capacitive TouchScreen"),
        ("11-0041 ilitek_ts", "*ilitek_ts"),
        ("ELAN Touchscreen", "ELAN Touchscreen"),
        ("raspberrypi-ts", "raspberrypi-ts"),
        ("Wacom HID 52C2 Finger", "Wacom HID 52C2 Finger"),
        // What stays must name something, or the glob would match every device.
        ("10-0038 (79)", "10-0038 (79)"),
        ("(79)", "(79)"),
        // Not a bus prefix: the address is not four hex digits, or no space follows.
        ("1-38 generic", "1-38 generic"),
        ("10-0038generic", "10-0038generic"),
        ("x10-0038 generic", "x10-0038 generic"),
        ("", ""),
    ])
    func suggestedPattern(_ name: String, _ expected: String) {
        let pattern = UnmatchedTouchscreen.suggestedPattern(for: name)
        #expect(pattern == expected)
        #expect(Glob.matches(pattern: pattern, name))
    }

    @Test func gesturedDevicesWarnsAndSuggests() {
        let configuration = Self.configuration([("*generic ft5x06 (79)", true, true)])
        let report = DeviceReport(node: Self.node, opened: .success(Self.ft5406), configuration: configuration)
        let summary = DeviceSummary(report)
        #expect(summary.used && !summary.passThrough)
        #expect(summary.suggestedMatchName == "*generic ft5x06 (*)")
        #expect(
            DeviceListing.text([report]).contains(
                "  used: yes\n  warning: touchscreen \"10-0038 generic ft5x06 (00)\" matches no [[device]] entry"))
        let matched = DeviceReport(
            node: Self.node, opened: .success(Self.renamed(Self.ft5406, "10-0038 generic ft5x06 (79)")), configuration: configuration)
        #expect(DeviceSummary(matched).warning == nil && !DeviceListing.text([matched]).contains("warning"))
    }
}
