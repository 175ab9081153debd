/// How a pass-through device's uinput clone is described, and how it is told from every other
/// device.
///
/// The clone is the original to everything the operator configured for the touchscreen: it
/// keeps the original's **name**, bus, vendor, product and version, so udev rules matched on
/// the name (`ATTRS{name}`: a `LIBINPUT_CALIBRATION_MATRIX` for a portrait screen), sway's
/// `input "vendor:product:name"` lines (`map_to_output`) and libinput quirks matched on
/// name or ids apply to the clone as they did to the original. What marks it as gestured's is
/// its `phys`: `gestured-pass-through:` followed by the original's node, which udev and
/// libinput do not key on. The daemon never uses a device with that mark, and `gestured
/// devices` pairs each clone with its original by it.
public enum PassThroughClone {
    /// The clone's `phys` is this followed by the original's node (`/dev/input/event5`).
    public static let physPrefix = "gestured-pass-through:"

    /// The `phys` of the clone of the device at `originalNode`.
    public static func phys(cloning originalNode: String) -> String {
        physPrefix + originalNode
    }

    /// The original's node when `phys` is a clone's, else nil.
    public static func originalNode(ofClonePhys phys: String?) -> String? {
        guard let phys, phys.hasPrefix(physPrefix) else { return nil }
        return String(phys.dropFirst(physPrefix.count))
    }

    /// The pointer buttons a touchscreen may advertise besides `BTN_TOUCH` (`BTN_LEFT` …
    /// `BTN_TASK`): many HID panels describe a mouse too, and udev then tags them
    /// `ID_INPUT_MOUSE`, which makes a compositor show a cursor on a touch-only kiosk.
    public static let pointerButtons: ClosedRange<UInt16> = BTN.left...0x117

    /// Whether a description advertises pointer capabilities besides touch: pointer buttons
    /// or relative axes.
    public static func hasPointerCapabilities(_ description: DeviceDescription) -> Bool {
        !(description.codes[EV.rel] ?? []).isEmpty
            || (description.codes[EV.key] ?? []).contains { pointerButtons.contains($0) }
    }

    /// The description the clone is created from: the original's name, ids, capabilities,
    /// properties, axis ranges and resolutions, marked as gestured's by its `phys`, with no
    /// fuzz (the original's kernel already filtered its values; fuzz on the clone would make
    /// the kernel filter them a second time and move the clone's coordinates away from the
    /// device's). A touchscreen's clone is touch-only unless `keepPointer`: no pointer
    /// buttons and no relative axes, so udev calls it a touchscreen and nothing else.
    /// Touchpads keep their buttons (a clickpad's click is `BTN_LEFT`).
    public static func description(cloning original: DeviceDescription, node: String, keepPointer: Bool) -> DeviceDescription {
        var clone = original
        clone.phys = phys(cloning: node)
        for code in clone.absInfo.keys { clone.absInfo[code]?.fuzz = 0 }
        if !keepPointer, original.kind == .touchscreen {
            clone.codes[EV.rel] = nil
            if var keys = clone.codes[EV.key] {
                keys.subtract(pointerButtons)
                clone.codes[EV.key] = keys.isEmpty ? nil : keys
            }
        }
        return clone
    }

    /// One frame that leaves the clone with no touch and no key down, whatever was down
    /// before: every slot's tracking id -1 (protocol B), an empty contact list (protocol A),
    /// every key released, then `SYN_REPORT`. The kernel drops the values that change
    /// nothing, so it is safe to write at any moment; the clone guard writes it when the
    /// daemon dies without lifting its touches.
    public static func releaseFrame(for clone: DeviceDescription) -> [InputEvent] {
        var events: [InputEvent] = []
        if clone.hasSlots, clone.has(EV.abs, ABS.mtTrackingID) {
            let first = Int32(clone.absInfo[ABS.mtSlot]?.minimum ?? 0)
            for slot in first..<(first + Int32(clone.slotCount)) {
                events.append(InputEvent(time: .zero, type: EV.abs, code: ABS.mtSlot, value: slot))
                events.append(InputEvent(time: .zero, type: EV.abs, code: ABS.mtTrackingID, value: -1))
            }
        } else if clone.isMultitouch {
            events.append(InputEvent(time: .zero, type: EV.syn, code: SYN.mtReport, value: 0))
        }
        for key in (clone.codes[EV.key] ?? []).sorted() {
            events.append(InputEvent(time: .zero, type: EV.key, code: key, value: 0))
        }
        events.append(InputEvent(time: .zero, type: EV.syn, code: SYN.report, value: 0))
        return events
    }
}
