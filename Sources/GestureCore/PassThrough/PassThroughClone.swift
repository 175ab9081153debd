/// How a pass-through device's uinput clone is described: the original's description under
/// the original's name plus a suffix, so the daemon (and `gestured devices`) recognise their
/// clones and pair them with their originals, while udev and libinput classify the clone as
/// the same kind of device.
public enum PassThroughClone {
    /// Appended to the original's name.
    public static let nameSuffix = " (gestured pass-through)"
    /// uinput names hold at most 79 bytes (`UINPUT_MAX_NAME_SIZE` with the terminating NUL).
    public static let maximumNameBytes = 79

    /// The clone's name: the original's, shortened on a character boundary when the suffix
    /// would not fit, then the suffix.
    public static func name(for original: String) -> String {
        let room = maximumNameBytes - nameSuffix.utf8.count
        var kept = Substring(original)
        while kept.utf8.count > room { kept = kept.dropLast() }
        return kept + nameSuffix
    }

    /// The original's name (as far as it fitted) when `name` is a clone's, else nil.
    public static func originalName(ofClone name: String) -> String? {
        name.hasSuffix(nameSuffix) ? String(name.dropLast(nameSuffix.count)) : nil
    }

    /// The description the clone is created from: the original's capabilities, properties,
    /// ids, axis ranges and resolutions under the clone's name, with no fuzz. The original's
    /// kernel already filtered its values; fuzz on the clone would make the kernel filter them
    /// a second time and move the clone's coordinates away from the device's.
    public static func description(cloning original: DeviceDescription) -> DeviceDescription {
        var clone = original
        clone.name = name(for: original.name)
        for code in clone.absInfo.keys { clone.absInfo[code]?.fuzz = 0 }
        return clone
    }
}
