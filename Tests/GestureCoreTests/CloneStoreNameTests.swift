import Testing

@testable import GestureCore

/// The name a pass-through clone is kept under in systemd's file descriptor store: a
/// restarted daemon takes back a stored clone only when the clone it would make now has the
/// same name, so the name must be the same in every process and differ whenever the clone
/// would.
struct CloneStoreNameTests {
    let panel = DeviceDescription(
        name: "ELAN Touchscreen", phys: "usb-0000:00:14.0-1/input0", bus: 3, vendor: 0x04f3, product: 0x2a1c, version: 0x110,
        properties: [INPUTPROP.direct],
        codes: [EV.key: [BTN.touch, BTN.left], EV.abs: [ABS.mtSlot, ABS.mtTrackingID, ABS.mtPositionX, ABS.mtPositionY]],
        absInfo: [
            ABS.mtSlot: AbsInfo(minimum: 0, maximum: 9), ABS.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
            ABS.mtPositionX: AbsInfo(value: 0, minimum: 0, maximum: 1919, fuzz: 4),
            ABS.mtPositionY: AbsInfo(value: 0, minimum: 0, maximum: 1079, fuzz: 4),
        ])

    func name(_ original: DeviceDescription, node: String = "/dev/input/event5", keepPointer: Bool = false, cloneName: String? = nil)
        -> String
    {
        PassThroughClone.storeName(
            for: PassThroughClone.description(cloning: original, node: node, keepPointer: keepPointer, name: cloneName))
    }

    /// Computed from the bytes alone (FNV-1a), never from Swift's per-process seeded
    /// `Hasher`, so it holds in every process and every run. The literal was worked out
    /// apart from this code (a dozen lines of Python over the same fields: the clone's fuzz
    /// is 0 and its `BTN_LEFT` removed).
    @Test func theNameIsTheSameInEveryProcess() {
        #expect(name(panel) == "gestured-clone-event5-9a41f562be433e24")
    }

    @Test func theNameIsOneSystemdAccepts() {
        let stored = name(panel, node: "/dev/input/by-id/usb-odd:name with spaces")
        #expect(PassThroughClone.isStoreName(stored))
        #expect(stored.count <= 255)
        #expect(stored.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F && $0 != ":" }, "\(stored)")
        #expect(!PassThroughClone.isStoreName("gestured.socket"))
    }

    /// Where the axes are now is no part of what the clone is.
    @Test func currentAxisValuesDoNotChangeTheName() {
        var moved = panel
        moved.absInfo[ABS.mtPositionX]?.value = 800
        moved.absInfo[ABS.mtSlot]?.value = 3
        #expect(name(moved) == name(panel))
    }

    /// `clone-name` renames the clone and nothing else: its ids, capabilities and the `phys`
    /// that marks it as gestured's stay; without it the clone has the original's name.
    @Test func aCloneNameRenamesOnlyTheName() {
        let renamed = PassThroughClone.description(
            cloning: panel, node: "/dev/input/event5", keepPointer: false, name: "gestured touchscreen")
        var expected = PassThroughClone.description(cloning: panel, node: "/dev/input/event5", keepPointer: false)
        #expect(expected.name == panel.name)
        expected.name = "gestured touchscreen"
        #expect(renamed == expected)
        #expect(PassThroughClone.originalNode(ofClonePhys: renamed.phys) == "/dev/input/event5")
    }

    /// Another node, capabilities, ranges or pointer setting make another clone: its stored
    /// predecessor must match nothing.
    @Test func anythingTheCloneIsMadeOfChangesTheName() {
        var wider = panel
        wider.absInfo[ABS.mtPositionX]?.maximum = 4095
        var renamed = panel
        renamed.name = "ELAN Touchscreen 2"
        var moreSlots = panel
        moreSlots.absInfo[ABS.mtSlot]?.maximum = 4
        let names = [
            name(panel), name(panel, node: "/dev/input/event6"), name(panel, keepPointer: true), name(wider), name(renamed),
            name(moreSlots), name(panel, cloneName: "gestured touchscreen"),
        ]
        #expect(Set(names).count == names.count, "\(names)")
    }
}
