import FuzzSupport
import GestureCore
import GestureProtocol
import Glibc
import Recordings

// Raw evdev event streams into the contact tracker and the gesture engine, on a device and
// a configuration (random nested regions, thresholds, geometry) decoded from the input:
//
//   header (80 bytes): device shape, axis ranges and resolution, rotation, calibration,
//                      physical size, enabled gestures, thresholds, base time, up to 7
//                      regions each nested in an earlier one (or the screen), with their
//                      composition (fall-through, simultaneous, high-priority kinds), and
//                      touch hygiene ([touch]: which filters, debounce / ignore-repeat,
//                      hold-duration, stuck-after; zeros: all off)
//   then 9-byte events: time delta (Int16, × 50 µs, negative: backwards), type (UInt8),
//                       code (UInt16), value (Int32), little-endian
//
// Every gesture is checked against the protocol's promises and its wire line (and every
// touch line) against the daemon's JSON reader; at the end no gesture may be left open.
//
// `fuzz-engine --export-seeds DIR RECORDING…` writes recordings in this format (the
// header describing the recording's own device), to seed the fuzzer with real input.

let headerSize = 80
let eventSize = 9

struct Scenario {
    var device: DeviceDescription
    var geometry: DeviceGeometry
    var engine: EngineConfiguration
    var touch: TouchHygieneSettings
    var baseTime: UInt64

    init(_ reader: inout ByteReader) {
        let flags = reader.integer(UInt8.self)
        let minimumX = Int32(reader.integer(Int8.self)) * 64
        let maximumX = reader.integer(Int32.self)
        let minimumY = Int32(reader.integer(Int8.self)) * 64
        let maximumY = reader.integer(Int32.self)
        let resolution = Int32(reader.integer(UInt8.self))
        let slots = Int32(reader.integer(UInt8.self) % 64)
        var properties: Set<UInt16> = []
        if flags & 0x04 != 0 { properties.insert(INPUTPROP.direct) }
        if flags & 0x08 != 0 { properties.formUnion([INPUTPROP.pointer, INPUTPROP.semiMT]) }
        var keys: Set<UInt16> = [BTN.touch]
        if flags & 0x10 != 0 { keys.formUnion([BTN.toolFinger, BTN.toolDoubleTap, BTN.toolTripleTap, BTN.toolQuadTap]) }
        var axes: [UInt16: AbsInfo] = [
            ABS.x: AbsInfo(minimum: minimumX, maximum: maximumX, resolution: resolution),
            ABS.y: AbsInfo(minimum: minimumY, maximum: maximumY, resolution: resolution),
        ]
        if flags & 0x01 != 0 {
            axes[ABS.mtPositionX] = AbsInfo(minimum: minimumX, maximum: maximumX, resolution: flags & 0x40 != 0 ? 0 : resolution)
            axes[ABS.mtPositionY] = AbsInfo(minimum: minimumY, maximum: maximumY, resolution: resolution)
            axes[ABS.mtTrackingID] = AbsInfo(minimum: 0, maximum: 65535)
            if flags & 0x02 != 0 { axes[ABS.mtSlot] = AbsInfo(minimum: 0, maximum: slots) }
            if flags & 0x20 != 0 { axes[ABS.mtToolType] = AbsInfo(minimum: 0, maximum: 2) }
        }
        var codes: [UInt16: Set<UInt16>] = [EV.key: keys, EV.abs: Set(axes.keys)]
        codes[EV.syn] = [SYN.report, SYN.mtReport, SYN.dropped]
        device = DeviceDescription(name: "fuzz", properties: properties, codes: codes, absInfo: axes)

        let rotation = Rotation.allCases[Int(reader.integer(UInt8.self) % 4)]
        let shape = reader.integer(UInt8.self)
        // Calibrations the configuration accepts: identity, swapped axes, a scaled corner.
        let calibrations: [[Double]] = [[1, 0, 0, 0, 1, 0], [0, 1, 0, -1, 0, 1], [0.5, 0, 0.25, 0, 2, -0.5], [-1, 0, 1, 0, -1, 1]]
        let size = shape & 0x80 != 0 ? PhysicalSize(width: 1 + reader.fraction() * 999, height: 1 + reader.fraction() * 999) : nil
        geometry = DeviceGeometry(rotation: rotation, calibration: calibrations[Int(shape % 4)], physicalSize: size)

        var defaults = GestureSettings()
        let enabled = reader.integer(UInt8.self)
        defaults.enabled = Set(GestureKind.allCases.enumerated().filter { enabled & (1 << $0.offset) == 0 }.map(\.element))
        defaults.tap.exclusive = enabled & 0x80 != 0
        defaults.tap.maxCount = 1 + Int(reader.integer(UInt8.self) % 20)
        defaults.tap.slop = reader.fraction() * 20
        defaults.tap.multiTapInterval = reader.fraction() * 1000
        defaults.longPress.minimumDuration = 1 + reader.fraction() * 2000
        defaults.drag.minimumDistance = reader.fraction() * 20
        defaults.drag.decelerationRate = 0.9 + reader.fraction() * 0.0999
        defaults.swipe.minimumVelocity = reader.fraction() * 1000
        baseTime = reader.integer(UInt64.self)

        var regions: [Region] = []
        var rects: [Rect] = []
        let regionCount = Int(reader.integer(UInt8.self) % 8)
        for index in 0..<7 {
            let parent = reader.integer(UInt8.self)
            let (x, y, w, h) = (reader.fraction(), reader.fraction(), reader.fraction(), reader.fraction())
            let composition = reader.integer(UInt8.self)
            guard index < regionCount else { continue }
            // Inside an earlier region (nesting) or the whole screen.
            let outer = parent % 2 == 0 || rects.isEmpty ? Rect(x: 0, y: 0, width: 1, height: 1) : rects[Int(parent / 2) % rects.count]
            let rect = Rect(x: outer.x + x * outer.width * 0.9, y: outer.y + y * outer.height * 0.9,
                            width: max(0.001, w * outer.width * (1 - x * 0.9)), height: max(0.001, h * outer.height * (1 - y * 0.9)))
            rects.append(rect)
            var settings = defaults
            settings.tap.exclusive = parent & 0x40 != 0
            if parent & 0x20 != 0 { settings.enabled = [.tap, .press] }
            func kinds(_ bits: UInt8, _ choices: [GestureKind]) -> Set<GestureKind> {
                Set(choices.enumerated().filter { bits & (1 << $0.offset) != 0 }.map(\.element))
            }
            regions.append(Region(name: "r\(index)", rect: rect, settings: settings, fallThrough: composition & 1 == 0,
                                  simultaneous: kinds(composition >> 1, [.drag, .pinch, .tap]),
                                  highPriority: kinds(composition >> 4, [.drag, .longPress, .swipe, .rotate])))
        }
        engine = EngineConfiguration(defaults: defaults, regions: regions)

        // Touch hygiene: bit 0 debounce, 1 ignore-repeat, 2 hold-duration, 3 stuck-after,
        // 4 phantom; durations short enough for the events' time deltas to cross them.
        let filters = reader.integer(UInt8.self)
        let repeatWindow = TimeSpan.milliseconds(Double(reader.integer(UInt8.self)) * 2)
        let hold = TimeSpan.milliseconds(Double(reader.integer(UInt8.self)) * 4)
        let stuck = TimeSpan.milliseconds(Double(reader.integer(UInt8.self)) * 20)
        touch = TouchHygieneSettings(
            debounce: filters & 0x01 != 0 ? repeatWindow : .zero, ignoreRepeat: filters & 0x02 != 0 ? repeatWindow : .zero,
            holdDuration: filters & 0x04 != 0 ? hold : .zero, stuckAfter: filters & 0x08 != 0 ? stuck : .zero,
            phantom: filters & 0x10 != 0 ? .suppress : .off)
    }
}

/// `FUZZ_TRACE=1 fuzz-engine FILE` prints the scenario, the events and the gestures of one
/// input (a finding) to standard error.
let tracing = getenv("FUZZ_TRACE") != nil

func trace(_ text: @autoclosure () -> String) {
    if tracing { traceLine(text()) }
}

func run(_ input: UnsafeRawBufferPointer) {
    var reader = ByteReader(input)
    let scenario = Scenario(&reader)
    precondition(reader.offset <= headerSize, "the header holds every scenario field")
    trace("device: \(scenario.device)\ngeometry: \(scenario.geometry)\nbase time: \(scenario.baseTime)")
    trace("defaults: \(scenario.engine.defaults)")
    for region in scenario.engine.regions { trace("region: \(region)") }
    trace("touch: \(scenario.touch)")
    reader = ByteReader(UnsafeRawBufferPointer(rebasing: input[min(input.count, headerSize)...]))
    var pipeline = DevicePipeline(
        device: scenario.device, geometry: scenario.geometry, configuration: scenario.engine, touch: scenario.touch)
    if tracing { pipeline.transitionLog = { trace("  transition: \($0)") } }
    var sink = CheckedSink(scenario.engine, trace: tracing)
    var time = scenario.baseTime
    var latest: UInt64 = 0
    while reader.remaining >= eventSize {
        time &+= UInt64(bitPattern: Int64(reader.integer(Int16.self)) * 50)
        let event = InputEvent(time: Timestamp(microseconds: time), type: UInt16(reader.integer(UInt8.self)), code: reader.integer(UInt16.self),
                               value: reader.integer(Int32.self))
        trace("event: \(event)")
        if let deadline = pipeline.nextDeadline, deadline <= event.time {
            pipeline.advance(to: event.time, into: &sink) { frame, sink in sink.touches(frame) }
        }
        if pipeline.feed(event, into: &sink) {
            sink.touches(pipeline.frame)
        }
        latest = max(latest, time)
    }
    pipeline.finish(at: Timestamp(microseconds: latest), into: &sink)
    sink.finish()
}

/// The header and events of `recording` in this harness's format.
func encode(_ recording: Recording) -> [UInt8] {
    var bytes: [UInt8] = []
    func put<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
    let device = recording.device
    let x = device.absInfo[ABS.mtPositionX] ?? device.absInfo[ABS.x] ?? AbsInfo(minimum: 0, maximum: 4095)
    let y = device.absInfo[ABS.mtPositionY] ?? device.absInfo[ABS.y] ?? AbsInfo(minimum: 0, maximum: 4095)
    var flags: UInt8 = 0
    if device.isMultitouch { flags |= 0x01 }
    if device.hasSlots { flags |= 0x02 }
    if device.hasProperty(INPUTPROP.direct) { flags |= 0x04 }
    if device.hasProperty(INPUTPROP.semiMT) { flags |= 0x08 }
    if device.has(EV.key, BTN.toolDoubleTap) { flags |= 0x10 }
    if device.absInfo[ABS.mtToolType] != nil { flags |= 0x20 }
    put(flags)
    put(Int8(clamping: x.minimum / 64)); put(x.maximum)
    put(Int8(clamping: y.minimum / 64)); put(y.maximum)
    put(UInt8(clamping: x.resolution)); put(UInt8(clamping: device.slotCount - 1))
    bytes += [UInt8](repeating: 0, count: 10)  // rotation, geometry, gestures and thresholds: as zero reads them
    put(recording.events.first?.time.microseconds ?? 0)
    bytes += [UInt8](repeating: 0, count: headerSize - bytes.count)
    var previous = recording.events.first?.time.microseconds ?? 0
    for event in recording.events.prefix(4000) {
        let delta = (Int64(bitPattern: event.time.microseconds &- previous) / 50)
        put(Int16(clamping: delta))
        previous = previous &+ UInt64(bitPattern: Int64(Int16(clamping: delta)) * 50)
        put(UInt8(truncatingIfNeeded: event.type)); put(event.code); put(event.value)
    }
    return bytes
}

let arguments = CommandLine.arguments
if arguments.count > 2, arguments[1] == "--export-seeds" {
    var written = 0
    for (index, path) in arguments.dropFirst(3).enumerated() {
        guard let recordings = try? RecordingReader.read(path: path) else { continue }
        for (part, recording) in recordings.enumerated() where !recording.events.isEmpty {
            let bytes = encode(recording)
            let file = fopen("\(arguments[2])/seed-\(index)-\(part)", "w")
            if let file {
                fwrite(bytes, 1, bytes.count, file)
                fclose(file)
                written += 1
            }
        }
    }
    print("\(written) seeds written to \(arguments[2])")
    exit(0)
}

fuzzMain(run)
