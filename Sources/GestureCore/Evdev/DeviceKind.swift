/// What kind of input device a description is, decided from its capabilities alone
/// (the same rules as udev's `input_id` builtin, narrowed to what gestured cares about).
public enum DeviceKind: String, Sendable, Hashable, CaseIterable {
    /// Direct touch on a display: `INPUT_PROP_DIRECT` with MT or `ABS_X/Y` + `BTN_TOUCH`
    /// (or, on old kernels that set no property, `BTN_TOUCH` without a finger tool).
    case touchscreen
    /// Indirect touch: `INPUT_PROP_POINTER`, or `BTN_TOOL_FINGER` without `INPUT_PROP_DIRECT`.
    case touchpad
    /// A pen or stylus digitizer (`BTN_TOOL_PEN`/`BTN_STYLUS`) that is not a finger device.
    case tablet
    /// Keyboards, mice, buttons, anything without absolute touch axes.
    case other

    /// Whether gestured can read gestures from it at all.
    public var isTouchDevice: Bool {
        switch self {
        case .touchscreen, .touchpad: return true
        case .tablet, .other: return false
        }
    }
}

extension DeviceDescription {
    /// The device's kind; see `DeviceKind` for the rules.
    public var kind: DeviceKind {
        let hasAbsXY = hasAxis(ABS.x) && hasAxis(ABS.y)
        let hasMTXY = hasAxis(ABS.mtPositionX) && hasAxis(ABS.mtPositionY)
        guard hasAbsXY || hasMTXY else { return .other }
        let direct = hasProperty(INPUTPROP.direct)
        let pointer = hasProperty(INPUTPROP.pointer)
        let finger = has(EV.key, BTN.toolFinger)
        let pen = has(EV.key, BTN.toolPen) || has(EV.key, BTN.stylus)
        let touch = has(EV.key, BTN.touch)
        if pen && !finger { return .tablet }
        if direct && (hasMTXY || touch) { return .touchscreen }
        if pointer || (finger && !direct) { return .touchpad }
        if touch && !finger { return .touchscreen }
        return .other
    }

    /// The surface's size from the axis resolution (units per mm), or nil when the device
    /// reports resolution 0. Uses the MT position axes when present, else `ABS_X/Y`.
    public var reportedPhysicalSize: PhysicalSize? {
        let (xCode, yCode) = isMultitouch ? (ABS.mtPositionX, ABS.mtPositionY) : (ABS.x, ABS.y)
        guard let x = absInfo[xCode], let y = absInfo[yCode], x.resolution > 0, y.resolution > 0 else {
            return nil
        }
        return PhysicalSize(
            width: Double(Int(x.maximum) - Int(x.minimum)) / Double(x.resolution),
            height: Double(Int(y.maximum) - Int(y.minimum)) / Double(y.resolution))
    }

    /// The axis resolution the size would come from (0 when unknown), for diagnostics.
    public var reportedResolution: Int32 {
        let xCode = isMultitouch ? ABS.mtPositionX : ABS.x
        return absInfo[xCode]?.resolution ?? 0
    }

    private func hasAxis(_ code: UInt16) -> Bool {
        absInfo[code] != nil || has(EV.abs, code)
    }
}
