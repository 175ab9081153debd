#if canImport(Glibc)
import Glibc
#endif
import EvdevInput
import GestureCore
import Testing

@Suite struct UseDecisionTests {
    let elanPaths = [
        "/dev/input/event5",
        "/dev/input/by-id/usb-ELAN_Touchscreen-event-if00",
        "/dev/input/by-path/pci-0000:00:14.0-usb-0:7:1.0-event",
    ]

    func entry(_ match: DeviceMatch, enabled: Bool = true) -> DeviceSettings {
        var settings = DeviceSettings(match: match)
        settings.enabled = enabled
        return settings
    }

    @Test func defaultsUseTouchscreensOnly() {
        let config = Configuration()
        #expect(config.useDecision(for: CorpusDevices.elan, paths: elanPaths) == .use(entry: nil))
        #expect(config.useDecision(for: CorpusDevices.atmel, paths: ["/dev/input/event2"]) == .use(entry: nil))
        #expect(config.useDecision(for: CorpusDevices.ntrig, paths: ["/dev/input/event3"]) == .use(entry: nil))
        #expect(config.useDecision(for: CorpusDevices.synaptics, paths: ["/dev/input/event4"]) == .touchpadsDisabled)
        #expect(config.useDecision(for: CorpusDevices.wacomPen, paths: []) == .notTouchDevice(.tablet))
        #expect(config.useDecision(for: CorpusDevices.keyboard, paths: []) == .notTouchDevice(.other))
    }

    @Test func useTouchpadsTurnsTouchpadsOn() {
        var config = Configuration()
        config.useTouchpads = true
        #expect(config.useDecision(for: CorpusDevices.synaptics, paths: []) == .use(entry: nil))
        #expect(config.useDecision(for: CorpusDevices.wacomPen, paths: []) == .notTouchDevice(.tablet))
    }

    @Test func disabledEntryIgnoresOnlyWhatItMatches() {
        var config = Configuration()
        config.devices = [entry(DeviceMatch(name: "ELAN*"), enabled: false)]
        let decision = config.useDecision(for: CorpusDevices.elan, paths: elanPaths)
        #expect(decision == .ignoredByConfig(entry: 0))
        #expect(decision.reason?.contains("enabled = false") == true)
        #expect(config.useDecision(for: CorpusDevices.atmel, paths: []) == .use(entry: nil))
    }

    @Test func enabledEntriesSelect() {
        var config = Configuration()
        config.devices = [entry(DeviceMatch(usbID: "04F3:010C"))]
        #expect(config.useDecision(for: CorpusDevices.elan, paths: elanPaths) == .use(entry: 0))
        #expect(config.useDecision(for: CorpusDevices.atmel, paths: []) == .notSelected)
    }

    @Test func selectByStableLink() {
        var config = Configuration()
        config.devices = [entry(DeviceMatch(path: "/dev/input/by-id/usb-ELAN_Touchscreen-event-if00"))]
        #expect(config.useDecision(for: CorpusDevices.elan, paths: elanPaths) == .use(entry: 0))
        #expect(config.useDecision(for: CorpusDevices.elan, paths: ["/dev/input/event5"]) == .notSelected)
    }

    @Test func firstMatchingEntryApplies() {
        var config = Configuration()
        config.devices = [
            entry(DeviceMatch(name: "Atmel*")),
            entry(DeviceMatch(name: "*Touchscreen"), enabled: false),
        ]
        #expect(config.useDecision(for: CorpusDevices.atmel, paths: []) == .use(entry: 0))
        #expect(config.useDecision(for: CorpusDevices.elan, paths: []) == .ignoredByConfig(entry: 1))
    }

    @Test func namingATouchpadUsesItDespiteUseTouchpadsOff() {
        var config = Configuration()
        config.devices = [entry(DeviceMatch(name: "SynPS/2*"))]
        #expect(config.useDecision(for: CorpusDevices.synaptics, paths: []) == .use(entry: 0))
    }

    @Test func namingAPenDoesNotMakeItTouch() {
        var config = Configuration()
        config.devices = [entry(DeviceMatch(name: "Wacom*"))]
        #expect(config.useDecision(for: CorpusDevices.wacomPen, paths: []) == .notTouchDevice(.tablet))
        #expect(config.useDecision(for: CorpusDevices.wacomFinger, paths: []) == .use(entry: 0))
    }

    @Test func permissionDeniedSaysWhatToDo() {
        let error = SystemError(errno: EACCES, call: "open", path: "/dev/input/event5")
        let decision = Configuration().useDecision(for: .failure(error), paths: ["/dev/input/event5"])
        #expect(decision == .cannotOpen(error))
        #expect(decision.reason == "cannot open: Permission denied — add the user to group `input` (or run the service with SupplementaryGroups=input)")
    }

    @Test func deviceMatchCriteria() {
        let paths = elanPaths
        func matches(_ match: DeviceMatch) -> Bool {
            match.matches(name: "ELAN Touchscreen", vendor: 0x04f3, product: 0x010c, paths: paths)
        }
        #expect(matches(DeviceMatch(name: "ELAN Touchscreen")))
        #expect(matches(DeviceMatch(name: "*Touch?creen")))
        #expect(!matches(DeviceMatch(name: "elan*")), "globs are case-sensitive")
        #expect(!matches(DeviceMatch(name: "ELAN")))
        #expect(matches(DeviceMatch(usbID: "04f3:010c")))
        #expect(matches(DeviceMatch(usbID: "4f3:10c")))
        #expect(!matches(DeviceMatch(usbID: "04f3")))
        #expect(!matches(DeviceMatch(usbID: "04f3:010c:1")))
        #expect(!matches(DeviceMatch(usbID: "zzzz:010c")))
        #expect(matches(DeviceMatch(name: "ELAN*", usbID: "04f3:010c", path: "/dev/input/event5")))
        #expect(!matches(DeviceMatch(name: "ELAN*", usbID: "04f3:0000")), "every criterion must match")
        #expect(!matches(DeviceMatch()), "an entry without criteria matches nothing")
    }

    @Test func hostileGlobFinishes() {
        let name = String(repeating: "a", count: 2000)
        let match = DeviceMatch(name: String(repeating: "a*", count: 40) + "b")
        #expect(!match.matches(name: name, vendor: 0, product: 0, paths: []))
        #expect(DeviceMatch(name: "*").matches(name: "", vendor: 0, product: 0, paths: []))
        #expect(DeviceMatch(name: "**a**").matches(name: "xay", vendor: 0, product: 0, paths: []))
    }
}
