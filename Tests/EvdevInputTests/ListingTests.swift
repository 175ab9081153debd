import EvdevInput
import Foundation
import GestureCore
import Glibc
import SystemCalls
import Testing

/// `gestured devices` output over fake device lists.
@Suite struct ListingTests {
    static let elanNode = DeviceNode(
        path: "/dev/input/event5", number: 5,
        links: ["/dev/input/by-id/usb-ELAN_Touchscreen-event-if00", "/dev/input/by-path/pci-0000:00:14.0-usb-0:7:1.0-event"])

    func report(_ node: DeviceNode, _ device: DeviceDescription, _ config: Configuration = .init()) -> DeviceReport {
        DeviceReport(node: node, opened: .success(device), configuration: config)
    }

    /// A pass-through device and its clone name each other; the clone is never used.
    @Test func pairsAPassThroughDeviceWithItsClone() {
        var config = Configuration()
        var entry = DeviceSettings(match: DeviceMatch(name: "ELAN*"))
        entry.passThrough = true
        config.devices = [entry]
        let cloneNode = DeviceNode(path: "/dev/input/event12", number: 12)
        let reports = [
            report(Self.elanNode, CorpusDevices.elan, config),
            report(
                cloneNode, PassThroughClone.description(cloning: CorpusDevices.elan, node: "/dev/input/event5", keepPointer: false), config),
        ]
        let summaries = DeviceListing.summaries(reports)
        #expect(summaries.map(\.passThrough) == [true, false])
        #expect(summaries[0].cloneNode == "/dev/input/event12" && summaries[1].cloneOf == "/dev/input/event5")
        #expect(reports[1].decision == .passThroughClone(of: "/dev/input/event5"))
        let text = DeviceListing.text(reports)
        #expect(text.contains("  used: yes\n  pass-through: clone /dev/input/event12\n"))
        #expect(text.contains("  used: no — gestured's pass-through clone of /dev/input/event5\n  clone of: /dev/input/event5\n"))
        // Without its clone in the list (gestured not running) the device says so.
        #expect(DeviceListing.text([reports[0]]).contains("pass-through: clone not present"))
    }

    /// A screen-oriented clone is named as such; a udev calibration matrix that the clone
    /// gets too (keyed on the name or ids it shares) is warned of, never applied twice
    /// silently: read on the clone when it is listed, else on the original.
    @Test func aScreenOrientedCloneWithAUdevMatrixIsWarnedOf() {
        var config = Configuration()
        var entry = DeviceSettings(match: DeviceMatch(name: "ELAN*"))
        entry.passThrough = true
        entry.cloneOrientation = .screen
        entry.geometry.rotation = .quarter
        config.devices = [entry]
        let matrix = ["LIBINPUT_CALIBRATION_MATRIX": "0 -1 1 1 0 0"]
        let cloneNode = DeviceNode(path: "/dev/input/event12", number: 12)
        let screen = ScreenOrientedClone(.screen, device: CorpusDevices.elan, geometry: entry.geometry)
        let cloneDescription = PassThroughClone.description(
            cloning: CorpusDevices.elan, node: "/dev/input/event5", keepPointer: false, screen: screen)
        func reports(original: [String: String], clone: [String: String]) -> [DeviceReport] {
            [
                DeviceReport(node: Self.elanNode, opened: .success(CorpusDevices.elan), configuration: config, udevProperties: original),
                DeviceReport(node: cloneNode, opened: .success(cloneDescription), configuration: config, udevProperties: clone),
            ]
        }
        let clean = reports(original: [:], clone: [:])
        #expect(DeviceListing.summaries(clean).map(\.cloneOrientation) == ["screen", nil])
        #expect(DeviceListing.summaries(clean)[0].cloneWarning == nil)
        #expect(DeviceListing.text(clean).contains("  pass-through: clone /dev/input/event12, in screen orientation\n"))
        let onClone = DeviceListing.summaries(reports(original: matrix, clone: matrix))
        #expect(onClone[0].cloneWarning == ScreenOrientedClone.udevMatrixWarning)
        // The clone is what libinput reads: a rule keyed on the original's node alone is not its.
        #expect(DeviceListing.summaries(reports(original: matrix, clone: [:]))[0].cloneWarning == nil)
        let withoutClone = [reports(original: matrix, clone: [:])[0]]
        #expect(DeviceListing.text(withoutClone).contains("  warning: udev gives this touchscreen's screen-oriented clone"))
        // A panel-oriented clone takes udev's matrix as the original did: nothing to warn of.
        config.devices[0].cloneOrientation = .panel
        #expect(DeviceListing.summaries(reports(original: matrix, clone: matrix))[0].cloneWarning == nil)
    }

    /// The clone is the original to udev rules, sway and libinput quirks (name, ids, codes,
    /// properties, ranges, resolutions), marked as gestured's by its phys alone.
    @Test func clonesKeepTheOriginalsIdentityAndAreMarkedByPhys() {
        var device = CorpusDevices.elan
        device.absInfo[ABS.mtPositionX]?.fuzz = 4
        device.phys = "usb-0000:00:14.0-7/input0"
        let clone = PassThroughClone.description(cloning: device, node: "/dev/input/event5", keepPointer: false)
        #expect(clone.name == device.name && clone.vendor == device.vendor && clone.product == device.product && clone.bus == device.bus)
        #expect(clone.phys == "gestured-pass-through:/dev/input/event5")
        #expect(PassThroughClone.originalNode(ofClonePhys: clone.phys) == "/dev/input/event5")
        #expect(PassThroughClone.originalNode(ofClonePhys: device.phys) == nil)
        #expect(PassThroughClone.originalNode(ofClonePhys: nil) == nil)
        #expect(clone.absInfo.values.allSatisfy { $0.fuzz == 0 })
        #expect(clone.absInfo.mapValues(\.resolution) == device.absInfo.mapValues(\.resolution))
        #expect(clone.codes == device.codes && clone.properties == device.properties)
        // The original (no phys mark) is used; its clone, with the same name, is not.
        var config = Configuration()
        config.devices = [DeviceSettings(match: DeviceMatch(name: "ELAN*"))]
        #expect(config.useDecision(for: device, paths: ["/dev/input/event5"]).isUsed)
        #expect(config.useDecision(for: clone, paths: ["/dev/input/event9"]) == .passThroughClone(of: "/dev/input/event5"))
    }

    /// A panel that also describes a mouse (BTN_LEFT, REL_X/REL_Y: some HID panels do) gets a
    /// touch-only clone unless pass-through-pointer keeps them; a touchpad keeps its buttons.
    @Test func aTouchscreensCloneIsTouchOnlyUnlessAsked() {
        var panel = CorpusDevices.elan
        panel.codes[EV.key, default: []].formUnion([BTN.left, BTN.right])
        panel.codes[EV.rel] = [0, 1]
        #expect(PassThroughClone.hasPointerCapabilities(panel))
        let clone = PassThroughClone.description(cloning: panel, node: "/dev/input/event5", keepPointer: false)
        #expect(!PassThroughClone.hasPointerCapabilities(clone))
        #expect(clone.codes[EV.rel] == nil && clone.has(EV.key, BTN.touch) && clone.kind == .touchscreen)
        #expect(clone.codes[EV.abs] == panel.codes[EV.abs])
        let kept = PassThroughClone.description(cloning: panel, node: "/dev/input/event5", keepPointer: true)
        #expect(kept.codes == panel.codes)
        let touchpad = CorpusDevices.synaptics
        #expect(PassThroughClone.description(cloning: touchpad, node: "/dev/input/event8", keepPointer: false).codes == touchpad.codes)
    }

    /// The guard's frame lifts every slot and releases every key, whatever was down.
    @Test func releaseFrameLiftsEverySlotAndKey() {
        let elan = CorpusDevices.elan
        let frame = PassThroughClone.releaseFrame(for: elan)
        let lifted = stride(from: 0, to: frame.count, by: 1).filter { frame[$0].code == ABS.mtTrackingID && frame[$0].type == EV.abs }
        #expect(lifted.count == elan.slotCount && lifted.allSatisfy { frame[$0].value == -1 && frame[$0 - 1].code == ABS.mtSlot })
        #expect(Set(frame.filter { $0.type == EV.key }.map(\.code)) == elan.codes[EV.key] ?? [])
        #expect(frame.filter { $0.type == EV.key }.allSatisfy { $0.value == 0 })
        #expect(frame.last == InputEvent(time: .zero, type: EV.syn, code: SYN.report, value: 0))
        // Protocol A: an empty contact list.
        let ntrig = PassThroughClone.releaseFrame(for: CorpusDevices.ntrig)
        #expect(ntrig.first == InputEvent(time: .zero, type: EV.syn, code: SYN.mtReport, value: 0))
        #expect(!ntrig.contains { $0.code == ABS.mtTrackingID && $0.type == EV.abs })
    }

    /// The sway identifier a clone shares with its original: decimal ids, blanks as `_`.
    @Test func swayIdentifiers() {
        var device = CorpusDevices.elan
        device.vendor = 0x04f3
        device.product = 0x2494
        device.name = " ELAN Touchscreen \t"
        #expect(DeviceListing.swayIdentifier(device) == "1267:9364:ELAN_Touchscreen")
        device.name = "Écran"
        #expect(DeviceListing.swayIdentifier(device) == "1267:9364:__cran")
    }

    @Test func listsKindSizeSlotsLinksAndUse() {
        let reports = [
            report(Self.elanNode, CorpusDevices.elan),
            report(DeviceNode(path: "/dev/input/event6", number: 6), CorpusDevices.atmel),
            report(DeviceNode(path: "/dev/input/event7", number: 7), CorpusDevices.ntrig),
            report(DeviceNode(path: "/dev/input/event8", number: 8), CorpusDevices.synaptics),
            report(DeviceNode(path: "/dev/input/event9", number: 9), CorpusDevices.wacomPen),
            DeviceReport(
                node: DeviceNode(path: "/dev/input/event10", number: 10),
                opened: .failure(SystemError(.permissionDenied, call: "open", path: "/dev/input/event10")),
                configuration: .init()),
        ]
        let text = DeviceListing.text(reports)
        #expect(
            text == """
                /dev/input/event5  "ELAN Touchscreen"  [04f3:010c]
                  kind: touchscreen
                  size: 331.2 × 187.2 mm
                  contacts: 10 slots
                  calibration: [1 0 0 0 1 0] (default: none configured, none from udev)
                  sway identifier: 1267:268:ELAN_Touchscreen
                  link: /dev/input/by-id/usb-ELAN_Touchscreen-event-if00
                  link: /dev/input/by-path/pci-0000:00:14.0-usb-0:7:1.0-event
                  used: yes
                /dev/input/event6  "Atmel maXTouch Touchscreen"  [0000:0000]
                  kind: touchscreen
                  size: resolution unknown (0): using fallback size (set physical-size in the configuration)
                  contacts: 10 slots
                  calibration: [1 0 0 0 1 0] (default: none configured, none from udev)
                  sway identifier: 0:0:Atmel_maXTouch_Touchscreen
                  used: yes
                /dev/input/event7  "N-Trig MultiTouch"  [1b96:0001]
                  kind: touchscreen
                  size: resolution unknown (0): using fallback size (set physical-size in the configuration)
                  contacts: protocol A
                  calibration: [1 0 0 0 1 0] (default: none configured, none from udev)
                  sway identifier: 7062:1:N-Trig_MultiTouch
                  used: yes
                /dev/input/event8  "SynPS/2 Synaptics TouchPad"  [0002:0007]
                  kind: touchpad
                  size: resolution unknown (0): using fallback size (set physical-size in the configuration)
                  contacts: 2 slots
                  calibration: [1 0 0 0 1 0] (default: none configured, none from udev)
                  sway identifier: 2:7:SynPS/2_Synaptics_TouchPad
                  used: no — touchpad, and use-touchpads is off
                /dev/input/event9  "Wacom Intuos5 touch M Pen"  [056a:0027]
                  kind: tablet
                  size: 223.5 × 139.7 mm
                  contacts: single-touch
                  calibration: [1 0 0 0 1 0] (default: none configured, none from udev)
                  sway identifier: 1386:39:Wacom_Intuos5_touch_M_Pen
                  used: no — not a touch device (tablet)
                /dev/input/event10
                  used: no — cannot open: Permission denied — add the user to group `input` (or run the service with SupplementaryGroups=input)

                """)
    }

    @Test func configuredSizeIsShownForResolutionZero() {
        var config = Configuration()
        var entry = DeviceSettings(match: DeviceMatch(name: "Atmel*"))
        entry.geometry.physicalSize = PhysicalSize(width: 154, height: 86.5)
        config.devices = [entry]
        let text = DeviceListing.text([report(DeviceNode(path: "/dev/input/event6", number: 6), CorpusDevices.atmel, config)])
        #expect(text.contains("size: resolution unknown (0): using configured size 154.0 × 86.5 mm"))
        let elan = DeviceListing.text([report(Self.elanNode, CorpusDevices.elan, config)])
        #expect(elan.contains("size: 331.2 × 187.2 mm\n"), "the entry for Atmel does not apply to ELAN")
        var elanEntry = DeviceSettings(match: DeviceMatch(name: "ELAN*"))
        elanEntry.geometry.physicalSize = PhysicalSize(width: 330, height: 187)
        config.devices = [elanEntry]
        let configured = DeviceListing.text([report(Self.elanNode, CorpusDevices.elan, config)])
        #expect(configured.contains("size: 330.0 × 187.0 mm (configured)\n"))
    }

    /// udev's matrix applies when the configuration gives none, and the listing says where
    /// the calibration in force comes from; one in the configuration wins over udev's.
    @Test func calibrationInForceAndItsSource() {
        let udev = [0.0, 1.0, 0.0, -1.0, 0.0, 1.0]
        let fromUdev = DeviceReport(
            node: Self.elanNode, opened: .success(CorpusDevices.elan), configuration: .init(), systemCalibration: udev)
        #expect(DeviceListing.text([fromUdev]).contains("  calibration: [0 1 0 -1 0 1] (from udev's LIBINPUT_CALIBRATION_MATRIX)\n"))
        guard case .use(let settings) = fromUdev.decision else {
            Issue.record("not used: \(fromUdev.decision)")
            return
        }
        #expect(settings.geometry.calibration == udev && settings.geometry.calibrationSource == .udev)

        var config = Configuration()
        var entry = DeviceSettings(match: DeviceMatch(name: "ELAN*"))
        entry.geometry.calibration = [0.5, 0, 0.25, 0, 1, 0]
        entry.geometry.calibrationSource = .configuration
        config.devices = [entry]
        let configured = DeviceReport(
            node: Self.elanNode, opened: .success(CorpusDevices.elan), configuration: config, systemCalibration: udev)
        #expect(DeviceListing.text([configured]).contains("  calibration: [0.5 0 0.25 0 1 0] (from the configuration)\n"))
        #expect(DeviceSummary(configured).calibrationSource == "configuration")

        let rejected = DeviceReport(
            node: Self.elanNode, opened: .success(CorpusDevices.elan), configuration: .init(),
            rejectedSystemCalibration: "\"0 0 0 0 0 0\" (flattens the panel)")
        #expect(
            DeviceListing.text([rejected]).contains(
                "  calibration: [1 0 0 0 1 0] (default: none configured, none from udev); udev's LIBINPUT_CALIBRATION_MATRIX \"0 0 0 0 0 0\" (flattens the panel) is not used\n"
            ))
    }

    /// udev's classification is shown for the original and its clone side by side, only the
    /// properties libinput and compositors go by.
    @Test func udevIdentityIsShown() throws {
        let reported = DeviceReport(
            node: Self.elanNode, opened: .success(CorpusDevices.elan), configuration: .init(),
            udevProperties: [
                "ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1", "ID_INPUT_MOUSE": "1", "DEVNAME": "/dev/input/event5",
                "LIBINPUT_CALIBRATION_MATRIX": "0 -1 1 1 0 0",
            ])
        let text = DeviceListing.text([reported])
        #expect(text.contains("  udev: ID_INPUT=1 ID_INPUT_MOUSE=1 ID_INPUT_TOUCHSCREEN=1 LIBINPUT_CALIBRATION_MATRIX=0 -1 1 1 0 0\n"))
        #expect(!text.contains("DEVNAME"))
        #expect(DeviceSummary(reported).udev?["ID_INPUT_MOUSE"] == "1")
        #expect(DeviceSummary(report(Self.elanNode, CorpusDevices.elan)).udev == nil)
    }

    @Test func emptyAndMissing() {
        #expect(DeviceListing.text([]) == "no input devices: no event nodes found\n")
        #expect(DeviceListing.noInputDirectoryLine("/dev/input") == "no input devices: /dev/input does not exist")
    }

    @Test func jsonSummary() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let elan = DeviceSummary(report(Self.elanNode, CorpusDevices.elan))
        let json = String(decoding: try encoder.encode(elan), as: UTF8.self)
        #expect(
            json
                == #"{"calibration":[1,0,0,0,1,0],"calibrationSource":"default","contacts":"10 slots","heightMM":187.2,"kind":"touchscreen","links":["/dev/input/by-id/usb-ELAN_Touchscreen-event-if00","/dev/input/by-path/pci-0000:00:14.0-usb-0:7:1.0-event"],"name":"ELAN Touchscreen","node":"/dev/input/event5","passThrough":false,"sizeSource":"resolution","slots":10,"swayIdentifier":"1267:268:ELAN_Touchscreen","usbID":"04f3:010c","used":true,"widthMM":331.2}"#
        )
        let atmel = DeviceSummary(report(DeviceNode(path: "/dev/input/event6", number: 6), CorpusDevices.atmel))
        #expect(atmel.sizeSource == "unknown" && atmel.width == nil)
        let ntrig = DeviceSummary(report(DeviceNode(path: "/dev/input/event7", number: 7), CorpusDevices.ntrig))
        #expect(ntrig.slots == 0 && ntrig.contacts == "protocol A")
    }
}
