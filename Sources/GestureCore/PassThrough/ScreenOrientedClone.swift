import GestureProtocol

/// A pass-through clone that reports touches in screen orientation
/// (`clone-orientation = "screen"`): every position the clone shows is the device's
/// position taken through the panel's `ScreenTransform` (the calibration and rotation the
/// daemon's own regions use), and the clone's position axes describe the screen's axes: for
/// a quarter turn the x and y axes trade ranges and resolutions, so the clone's x axis is as
/// long as the screen is wide. Positions that the calibration puts off the screen are held
/// at its edge (the clone's axis ranges are the screen).
///
/// Both position pairs are mapped: `ABS_MT_POSITION_X`/`_Y` (every slot, every protocol-A
/// contact) and the single-touch `ABS_X`/`ABS_Y`, each from and to its own axis ranges.
/// Other axes (pressure, touch size, `ABS_MT_ORIENTATION`) pass unchanged.
public struct ScreenOrientedClone: Sendable, Hashable {
    /// The panel's calibration and rotation.
    public let transform: ScreenTransform
    /// The device's position axes (ranges only), per pair.
    private let multitouch: AxisPair?
    private let singleTouch: AxisPair?

    /// The device's x and y axis ranges of one position pair.
    private struct AxisPair: Sendable, Hashable {
        var x: AbsInfo
        var y: AbsInfo

        init?(_ device: DeviceDescription, x: UInt16, y: UInt16) {
            guard var xInfo = device.absInfo[x], var yInfo = device.absInfo[y] else { return nil }
            xInfo.value = 0
            yInfo.value = 0
            self.x = xInfo
            self.y = yInfo
        }
    }

    /// What the daemon's log and `gestured devices` say when udev gives a screen-oriented
    /// clone (or its original, whose name and ids the clone carries) a
    /// `LIBINPUT_CALIBRATION_MATRIX`: libinput would apply it on top of the daemon's transform.
    public static let udevMatrixWarning =
        "udev gives this touchscreen's screen-oriented clone LIBINPUT_CALIBRATION_MATRIX (the clone carries the touchscreen's name and ids): libinput (the compositor) would apply it on top of gestured's rotation and calibration. Use one or the other: move the matrix to the device's calibration and remove the udev rule, or set clone-orientation = \"panel\""

    /// The screen-oriented clone of `device` mounted as `geometry` says; nil for
    /// `orientation` `.panel` (the clone shows the device's own coordinates).
    public init?(_ orientation: CloneOrientation, device: DeviceDescription, geometry: DeviceGeometry) {
        guard orientation == .screen else { return nil }
        transform = ScreenTransform(geometry)
        multitouch = AxisPair(device, x: ABS.mtPositionX, y: ABS.mtPositionY)
        singleTouch = AxisPair(device, x: ABS.x, y: ABS.y)
    }

    /// The clone's description from the panel-oriented one: for a quarter turn, each
    /// position pair's `absinfo` (range, resolution, flat) swapped; the axes' current
    /// values mapped.
    public func describe(_ clone: DeviceDescription) -> DeviceDescription {
        var described = clone
        for (pair, x, y) in [(multitouch, ABS.mtPositionX, ABS.mtPositionY), (singleTouch, ABS.x, ABS.y)] {
            guard let pair, let panelX = clone.absInfo[x], let panelY = clone.absInfo[y] else { continue }
            var screenX = transform.rotation.isQuarterTurn ? panelY : panelX
            var screenY = transform.rotation.isQuarterTurn ? panelX : panelY
            let value = map(x: panelX.value, y: panelY.value, pair)
            screenX.value = value.x
            screenY.value = value.y
            described.absInfo[x] = screenX
            described.absInfo[y] = screenY
        }
        return described
    }

    /// Where the device's multitouch position (`x`, `y`) is on the clone's
    /// `ABS_MT_POSITION_X`/`_Y` axes; unchanged when the device has no such axes.
    public func multitouchPosition(x: Int32, y: Int32) -> (x: Int32, y: Int32) {
        multitouch.map { map(x: x, y: y, $0) } ?? (x, y)
    }

    /// Where the device's single-touch position (`x`, `y`) is on the clone's
    /// `ABS_X`/`ABS_Y` axes; unchanged when the device has no such axes.
    public func singleTouchPosition(x: Int32, y: Int32) -> (x: Int32, y: Int32) {
        singleTouch.map { map(x: x, y: y, $0) } ?? (x, y)
    }

    /// The device's position on `pair`'s axes, on the clone's axes of the same pair: the
    /// device's minimum and maximum of each axis are 0 and 1, the screen's 0 and 1 are the
    /// clone axis's minimum and maximum, rounded to the nearest unit and held within them.
    private func map(x: Int32, y: Int32, _ pair: AxisPair) -> (x: Int32, y: Int32) {
        let screen = transform.screenPoint(u: Self.normalised(x, pair.x), v: Self.normalised(y, pair.y))
        let cloneX = transform.rotation.isQuarterTurn ? pair.y : pair.x
        let cloneY = transform.rotation.isQuarterTurn ? pair.x : pair.y
        return (Self.value(screen.x, on: cloneX), Self.value(screen.y, on: cloneY))
    }

    private static func normalised(_ value: Int32, _ axis: AbsInfo) -> Double {
        let range = Double(axis.maximum) - Double(axis.minimum)
        return range > 0 ? (Double(value) - Double(axis.minimum)) / range : 0
    }

    private static func value(_ normalised: Double, on axis: AbsInfo) -> Int32 {
        let range = Double(axis.maximum) - Double(axis.minimum)
        guard range > 0 else { return axis.minimum }
        let held = min(max(normalised, 0), 1)
        return Int32(clamping: Int64(axis.minimum) + Int64((held * range).rounded()))
    }

    /// The clone's state, screen-oriented, before and after a frame: `from` and `to` (the
    /// filter's panel-oriented states) with their positions mapped. A new touch in a slot has its position written whatever `from` held there: the kernel's slot on
    /// the clone may hold another value than the mapped one (a new clone's slots start at
    /// 0, which is not where 0 maps), and the kernel drops a value it already has anyway.
    func states(from: EvdevState, to: EvdevState, _ layout: EvdevLayout) -> (from: EvdevState, to: EvdevState) {
        var mappedFrom = mapped(from, layout)
        let mappedTo = mapped(to, layout)
        for index in mappedTo.slots.indices
        where mappedTo.slots[index].isDown && mappedTo.slots[index].trackingID != mappedFrom.slots[index].trackingID {
            for axis in [layout.slotX, layout.slotY].compactMap({ $0 }) {
                mappedFrom.slots[index].values[axis] = ~mappedTo.slots[index].values[axis]
            }
        }
        return (mappedFrom, mappedTo)
    }

    /// `state` with every position on the clone's axes.
    private func mapped(_ state: EvdevState, _ layout: EvdevLayout) -> EvdevState {
        var result = state
        if let slotX = layout.slotX, let slotY = layout.slotY {
            for index in result.slots.indices {
                let values = result.slots[index].values
                let position = multitouchPosition(x: values[slotX], y: values[slotY])
                result.slots[index].values[slotX] = position.x
                result.slots[index].values[slotY] = position.y
            }
        }
        for index in result.contacts.indices {
            let events = result.contacts[index].events
            guard let x = events.last(where: { $0.code == ABS.mtPositionX })?.value,
                let y = events.last(where: { $0.code == ABS.mtPositionY })?.value
            else { continue }
            let position = multitouchPosition(x: x, y: y)
            result.contacts[index].events = events.map { event in
                guard event.type == EV.abs else { return event }
                var mappedEvent = event
                if event.code == ABS.mtPositionX { mappedEvent.value = position.x }
                if event.code == ABS.mtPositionY { mappedEvent.value = position.y }
                return mappedEvent
            }
        }
        if let x = layout.x, let y = layout.y {
            let position = singleTouchPosition(x: result.axes[x], y: result.axes[y])
            result.axes[x] = position.x
            result.axes[y] = position.y
        }
        return result
    }
}
