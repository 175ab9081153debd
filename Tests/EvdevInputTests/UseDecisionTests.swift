import EvdevInput
import GestureCore
import Glibc
import SystemCalls
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

    func matchedEntry(_ decision: UseDecision) -> Int?? {
        guard case .use(let settings) = decision else { return .none }
        return .some(settings.matchedEntry)
    }

    @Test func defaultsUseTouchscreensOnly() {
        let config = Configuration()
        #expect(matchedEntry(config.useDecision(for: CorpusDevices.elan, paths: elanPaths)) == .some(nil))
        #expect(config.useDecision(for: CorpusDevices.atmel, paths: ["/dev/input/event2"]).isUsed)
        #expect(config.useDecision(for: CorpusDevices.ntrig, paths: ["/dev/input/event3"]).isUsed)
        #expect(config.useDecision(for: CorpusDevices.synaptics, paths: ["/dev/input/event4"]) == .touchpadsDisabled)
        #expect(config.useDecision(for: CorpusDevices.wacomFinger, paths: []) == .touchpadsDisabled)
        #expect(config.useDecision(for: CorpusDevices.wacomPen, paths: []) == .notTouchDevice(.tablet))
        #expect(config.useDecision(for: CorpusDevices.egalaxPen, paths: []) == .notTouchDevice(.tablet))
        #expect(config.useDecision(for: CorpusDevices.keyboard, paths: []) == .notTouchDevice(.other))
    }

    @Test func useTouchpadsTurnsTouchpadsOn() {
        var config = Configuration()
        config.useTouchpads = true
        #expect(config.useDecision(for: CorpusDevices.synaptics, paths: []).isUsed)
        #expect(config.useDecision(for: CorpusDevices.wacomPen, paths: []) == .notTouchDevice(.tablet))
    }

    @Test func disabledEntryIgnoresOnlyWhatItMatches() {
        var config = Configuration()
        config.devices = [entry(DeviceMatch(name: "ELAN*"), enabled: false)]
        let decision = config.useDecision(for: CorpusDevices.elan, paths: elanPaths)
        #expect(decision == .ignoredByConfig(entry: 0))
        #expect(decision.reason == "ignored by the configuration ([[device]] #1 has enabled = false)")
        #expect(config.useDecision(for: CorpusDevices.atmel, paths: []).isUsed)
    }

    @Test func entriesApplySettingsWithoutExcludingOthers() {
        var config = Configuration()
        var elan = entry(DeviceMatch(usbID: "04F3:010C"))
        elan.grab = true
        config.devices = [elan]
        guard case .use(let settings) = config.useDecision(for: CorpusDevices.elan, paths: elanPaths) else {
            Issue.record("ELAN not used")
            return
        }
        #expect(settings.matchedEntry == 0 && settings.grab)
        #expect(matchedEntry(config.useDecision(for: CorpusDevices.atmel, paths: [])) == .some(nil))
    }

    @Test func stableLinkSelectsTheEntry() {
        var config = Configuration()
        config.devices = [entry(DeviceMatch(path: "/dev/input/by-id/usb-ELAN_Touchscreen-event-if00"), enabled: false)]
        #expect(config.useDecision(for: CorpusDevices.elan, paths: elanPaths) == .ignoredByConfig(entry: 0))
        #expect(config.useDecision(for: CorpusDevices.elan, paths: ["/dev/input/event5"]).isUsed)
    }

    @Test func firstMatchingEntryApplies() {
        var config = Configuration()
        config.devices = [
            entry(DeviceMatch(name: "Atmel*")),
            entry(DeviceMatch(name: "*Touchscreen"), enabled: false),
        ]
        #expect(matchedEntry(config.useDecision(for: CorpusDevices.atmel, paths: [])) == .some(0))
        #expect(config.useDecision(for: CorpusDevices.elan, paths: []) == .ignoredByConfig(entry: 1))
    }

    @Test func anEntryCannotForceATouchpadOrPenIn() {
        var config = Configuration()
        config.devices = [entry(DeviceMatch(name: "*"))]
        #expect(config.useDecision(for: CorpusDevices.synaptics, paths: []) == .touchpadsDisabled)
        #expect(config.useDecision(for: CorpusDevices.wacomPen, paths: []) == .notTouchDevice(.tablet))
    }

    @Test func permissionDeniedSaysWhatToDo() {
        let error = SystemError(.permissionDenied, call: "open", path: "/dev/input/event5")
        let decision = Configuration().useDecision(for: .failure(error), paths: ["/dev/input/event5"])
        #expect(decision == .cannotOpen(error))
        #expect(
            decision.reason
                == "cannot open: Permission denied — add the user to group `input` (or run the service with SupplementaryGroups=input)")
    }
}
