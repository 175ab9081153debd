/// How a pass-through device's uinput clone is described, and how it is told from every other
/// device.
///
/// The clone is the original to everything the operator configured for the touchscreen: it
/// keeps the original's **name** (unless `clone-name` gives it one of its own), bus, vendor, product and version, so udev rules matched on
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

    /// The names the clones' descriptors carry in systemd's file descriptor store
    /// (`FDNAME=`) begin with this.
    public static let storeNamePrefix = "gestured-clone-"

    /// Whether a stored descriptor's name is a clone's (`storeName(for:)`).
    public static func isStoreName(_ name: String) -> Bool {
        name.hasPrefix(storeNamePrefix)
    }

    /// The name a clone made from `clone` (a `description(cloning:node:keepPointer:)`) is
    /// stored under: the original's node and a 64-bit FNV-1a hash of everything the clone is
    /// made of (name, `phys`, ids, properties, codes, axis ranges; not the axes' current
    /// values), e.g. `gestured-clone-event5-3f2a…`. Stable across runs, so a restarted daemon
    /// takes back exactly the clone it would make again, and a clone whose original changed
    /// (another node, other capabilities, `pass-through-pointer` turned on, axes swapped by a
    /// screen orientation) matches nothing.
    /// Only characters systemd allows in a name (printable ASCII, no `:`).
    public static func storeName(for clone: DeviceDescription) -> String {
        var hash = FNV1a()
        hash.add(clone.name)
        hash.add(clone.phys ?? "")
        for id in [clone.bus, clone.vendor, clone.product, clone.version] { hash.add(Int64(id)) }
        for property in clone.properties.sorted() { hash.add(Int64(property)) }
        for (type, codes) in clone.codes.sorted(by: { $0.key < $1.key }) {
            hash.add(Int64(type))
            for code in codes.sorted() { hash.add(Int64(code)) }
        }
        for (code, info) in clone.absInfo.sorted(by: { $0.key < $1.key }) {
            for field in [Int32(code), info.minimum, info.maximum, info.fuzz, info.flat, info.resolution] { hash.add(Int64(field)) }
        }
        let node =
            (originalNode(ofClonePhys: clone.phys) ?? PointerClone.originalNode(ofPointerPhys: clone.phys))?.split(separator: "/").last.map(
                String.init) ?? "device"
        let safeNode = String(node.unicodeScalars.filter { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F && $0 != ":" })
        let digits = String(hash.value, radix: 16)
        return storeNamePrefix + safeNode.prefix(64) + "-" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// 64-bit FNV-1a: a hash that is the same in every process (Swift's `Hasher` is seeded
    /// per process).
    private struct FNV1a {
        private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

        mutating func add(_ bytes: some Sequence<UInt8>) {
            for byte in bytes {
                value ^= UInt64(byte)
                value &*= 0x0000_0100_0000_01b3
            }
        }

        /// A string, with its length first so that field boundaries count.
        mutating func add(_ text: String) {
            add(Int64(text.utf8.count))
            add(text.utf8)
        }

        mutating func add(_ number: Int64) {
            withUnsafeBytes(of: number.littleEndian) { add($0) }
        }
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
    /// Touchpads keep their buttons (a clickpad's click is `BTN_LEFT`). `screen`: the clone
    /// reports screen-oriented positions, its position axes those of the screen. `name`: the
    /// clone's own name (`clone-name`) instead of the original's.
    public static func description(
        cloning original: DeviceDescription, node: String, keepPointer: Bool, screen: ScreenOrientedClone? = nil,
        name: String? = nil
    ) -> DeviceDescription {
        var clone = screen?.describe(original) ?? original
        clone.phys = phys(cloning: node)
        if let name { clone.name = name }
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
