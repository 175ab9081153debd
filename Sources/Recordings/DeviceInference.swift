import GestureCore

/// Builds a description from the events alone, for recordings that carry none (Android
/// `getevent` traces). The rule, axis by axis:
/// - `ABS_X`/`ABS_Y`/`ABS_MT_POSITION_X`/`Y`: minimum 0 (or the smallest value if negative),
///   maximum the largest value seen rounded up to the nearest common panel extent or power
///   of two, minus one (e.g. 478 → 479, 767 → 767, 1000 → 1023);
/// - `ABS_MT_TRACKING_ID`: 0…65535; `ABS_MT_SLOT`: 0…max(largest slot seen, 9);
/// - any other axis: 0…the next power of two minus one covering the largest value;
/// - resolution 0 everywhere, `INPUT_PROP_DIRECT` (these traces are phone and tablet
///   screens), and every type/code seen in the events.
enum DeviceInference {
    static func describe(name: String, events: [InputEvent]) -> DeviceDescription {
        var minimum: [UInt16: Int32] = [:]
        var maximum: [UInt16: Int32] = [:]
        var description = DeviceDescription(name: name, properties: [INPUTPROP.direct])
        for event in events where event.type == EV.abs {
            minimum[event.code] = min(minimum[event.code] ?? 0, event.value)
            maximum[event.code] = max(maximum[event.code] ?? 0, event.value)
        }
        description.addCodes(seenIn: events)
        description.codes[EV.syn, default: []].formUnion(DeviceDescription.synCodes)
        for (code, largest) in maximum {
            let smallest = minimum[code] ?? 0
            let info: AbsInfo
            switch code {
            case ABS.mtTrackingID:
                info = AbsInfo(minimum: 0, maximum: 65535)
            case ABS.mtSlot:
                info = AbsInfo(minimum: 0, maximum: max(largest, 9))
            case ABS.x, ABS.y, ABS.mtPositionX, ABS.mtPositionY:
                info = AbsInfo(minimum: smallest, maximum: panelExtent(covering: largest))
            default:
                info = AbsInfo(minimum: smallest, maximum: powerOfTwoExtent(covering: largest))
            }
            description.absInfo[code] = info
            description.codes[EV.abs, default: []].insert(code)
        }
        return description
    }

    /// Common panel sizes in pixels; touch controllers of phones and tablets usually report
    /// in display pixels.
    private static let panelSizes: [Int32] = [
        240, 272, 320, 480, 540, 600, 640, 720, 768, 800, 854, 960, 1024, 1080, 1200, 1280, 1366,
        1440, 1536, 1600, 1920, 2048, 2160, 2560, 2880, 3200, 3840, 4096,
    ]

    /// The smallest common panel extent or power of two, minus one, that covers `value`.
    static func panelExtent(covering value: Int32) -> Int32 {
        let panel = panelSizes.first { $0 - 1 >= value }.map { $0 - 1 } ?? Int32.max
        return min(panel, powerOfTwoExtent(covering: value))
    }

    /// 2^k − 1 ≥ value (at least 1).
    static func powerOfTwoExtent(covering value: Int32) -> Int32 {
        var extent: Int64 = 1
        while extent < Int64(value) { extent = extent * 2 + 1 }
        return Int32(clamping: extent)
    }
}
