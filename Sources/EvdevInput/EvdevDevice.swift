import CEvdev
import GestureCore
import GestureProtocol
import Glibc
import SystemCalls
import SystemPackage

/// How a `readAvailable` call ended.
public enum ReadOutcome: Sendable, Hashable {
    /// Everything readable was delivered; the fd is drained until it polls readable again.
    /// `resyncs` counts the `SYN_DROPPED` recoveries during this call.
    case drained(events: Int, resyncs: Int)
    /// The device vanished (`ENODEV`): drop it, cancel its gestures, close it.
    case deviceGone
}

/// One open evdev node, read through libevdev. Owns the file descriptor and the
/// `struct libevdev`; both are released in `deinit`.
public final class EvdevDevice {
    /// The node this was opened from, e.g. `/dev/input/event3`.
    public let path: String
    /// What the device reports, read through libevdev when it was opened.
    public let description: DeviceDescription
    /// The non-blocking descriptor, for the event loop to poll (EPOLLIN).
    public let fileDescriptor: FileDescriptor
    private let handle: OpaquePointer
    public private(set) var isGrabbed = false

    /// Opens `path` read-only, non-blocking, close-on-exec and reads its description.
    /// Throws `SystemError` (e.g. `EACCES` when not in group `input`, `ENOTTY` when the node
    /// is not an evdev device).
    public init(path: String) throws(SystemError) {
        let fd = try SystemCall.adopting("open", path: path) {
            try FileDescriptor.open(path, .readOnly, options: [.nonBlocking, .closeOnExec])
        }
        var device: OpaquePointer?
        do {
            _ = try SystemCall.negatedErrnoBlocking("libevdev_new_from_fd", path: path) {
                libevdev_new_from_fd(fd.rawValue, &device)
            }
        } catch {
            try? fd.close()
            throw error
        }
        guard let device else {
            try? fd.close()
            throw SystemError(.noMemory, call: "libevdev_new_from_fd", path: path)
        }
        self.path = path
        self.fileDescriptor = fd
        self.handle = device
        self.description = Self.readDescription(device)
    }

    deinit {
        libevdev_free(handle)
        try? fileDescriptor.close()
    }

    /// Stamps this descriptor's events with CLOCK_MONOTONIC instead of the default
    /// CLOCK_REALTIME (`EVIOCSCLOCKID` through `libevdev_set_clock_id`), so event times share
    /// the event loop's clock and engine deadlines need no mapping. Call before reading.
    public func useMonotonicClock() throws(SystemError) {
        _ = try SystemCall.negatedErrnoBlocking("libevdev_set_clock_id", path: path) {
            libevdev_set_clock_id(handle, CLOCK_MONOTONIC)
        }
    }

    /// Grabs the device exclusively (`EVIOCGRAB`): its events no longer reach other readers
    /// such as the compositor.
    public func grab() throws(SystemError) {
        _ = try SystemCall.negatedErrnoBlocking("libevdev_grab", path: path) {
            libevdev_grab(handle, LIBEVDEV_GRAB)
        }
        isGrabbed = true
    }

    /// Releases an exclusive grab.
    public func ungrab() throws(SystemError) {
        _ = try SystemCall.negatedErrnoBlocking("libevdev_grab", path: path) {
            libevdev_grab(handle, LIBEVDEV_UNGRAB)
        }
        isGrabbed = false
    }

    /// Delivers every event readable now, in order, then returns.
    ///
    /// On `SYN_DROPPED` (the kernel's buffer overflowed) it delivers
    /// `SYN_DROPPED, SYN_REPORT`, then libevdev's synthesized state delta (sync mode: current
    /// slot, tracking ids and axes that changed while events were lost) ending with a
    /// `SYN_REPORT`, and carries on reading normally. A consumer written for the kernel's raw
    /// rule (cancel on `SYN_DROPPED`, discard until `SYN_REPORT`) thus discards nothing of
    /// value — libevdev already dropped the partial frame — and applies the delta as an
    /// ordinary frame, so it knows the current slot and which contacts are down.
    public func readAvailable(into deliver: (InputEvent) -> Void) throws(SystemError) -> ReadOutcome {
        var event = input_event()
        return try Self.drain(
            next: { (syncMode: Bool) throws(SystemError) -> NextEvent in
                let flags = syncMode ? LIBEVDEV_READ_FLAG_SYNC.rawValue : LIBEVDEV_READ_FLAG_NORMAL.rawValue
                let status: IOResult<Int32>
                do throws(SystemError) {
                    status = try SystemCall.negatedErrno("libevdev_next_event", path: path) {
                        libevdev_next_event(handle, flags, &event)
                    }
                } catch  where error.errno == .operationNotSupportedByDevice {
                    return .deviceGone
                }
                switch status {
                case .wouldBlock: return .wouldBlock
                case .processed(let code) where code == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue):
                    return .sync(Self.inputEvent(event))
                case .processed: return .event(Self.inputEvent(event))
                }
            }, deliver: deliver)
    }

    /// One `libevdev_next_event` result in Swift terms.
    enum NextEvent: Hashable {
        /// `LIBEVDEV_READ_STATUS_SUCCESS`: an ordinary event.
        case event(InputEvent)
        /// `LIBEVDEV_READ_STATUS_SYNC`: in normal mode the `SYN_DROPPED`; in sync mode one
        /// event of the synthesized state delta.
        case sync(InputEvent)
        /// `-EAGAIN`: nothing more now (in sync mode: the delta is complete).
        case wouldBlock
        /// `-ENODEV`: the device was unplugged.
        case deviceGone
    }

    /// The drain loop over any source of `NextEvent`s (`syncMode` selects
    /// `LIBEVDEV_READ_FLAG_SYNC`), separate from libevdev so it can be tested with a script.
    static func drain(
        next: (_ syncMode: Bool) throws(SystemError) -> NextEvent, deliver: (InputEvent) -> Void
    ) throws(SystemError) -> ReadOutcome {
        var delivered = 0
        var resyncs = 0
        var syncing = false
        var lastWasReport = false
        var lastTime = Timestamp.zero
        func emit(_ value: InputEvent) {
            deliver(value)
            delivered += 1
            lastTime = value.time
            lastWasReport = value.type == EV.syn && value.code == SYN.report
        }
        while true {
            switch try next(syncing) {
            case .deviceGone:
                return .deviceGone
            case .wouldBlock where syncing:
                // The delta is drained. libevdev ends a non-empty delta with its own
                // SYN_REPORT; an empty one still needs a frame end for the consumer.
                if !lastWasReport {
                    emit(InputEvent(time: lastTime, type: EV.syn, code: SYN.report, value: 0))
                }
                syncing = false
            case .wouldBlock:
                return .drained(events: delivered, resyncs: resyncs)
            case .sync(let event) where !syncing:
                // The SYN_DROPPED itself: deliver it and close the discard window at once,
                // then drain libevdev's delta as its own frame.
                emit(event)
                emit(InputEvent(time: event.time, type: EV.syn, code: SYN.report, value: 0))
                resyncs += 1
                syncing = true
            case .sync(let event), .event(let event):
                emit(event)
            }
        }
    }

    /// Converts a kernel `input_event` (timeval) to an `InputEvent` (microseconds).
    static func inputEvent(_ event: input_event) -> InputEvent {
        InputEvent(time: Timestamp(microseconds: microseconds(event)), type: event.type, code: event.code, value: event.value)
    }

    static func microseconds(_ event: input_event) -> UInt64 {
        microseconds(seconds: Int64(event.time.tv_sec), microseconds: Int64(event.time.tv_usec))
    }

    /// `timeval` → microseconds; negative parts (never sent by the kernel) count as 0.
    static func microseconds(seconds: Int64, microseconds: Int64) -> UInt64 {
        UInt64(max(0, seconds)) &* 1_000_000 &+ UInt64(max(0, microseconds))
    }

    /// The device's state as libevdev knows it now (after everything read so far): every
    /// slot's `ABS_MT_*` values, the current slot, the other axes and the keys.
    public func snapshot() -> EvdevSnapshot {
        let multitouch = (description.codes[EV.abs] ?? []).filter { $0 >= ABS.mtSlot && $0 <= ABS.mtToolY && $0 != ABS.mtSlot }
        let slotCount = description.hasSlots ? Int(max(0, libevdev_get_num_slots(handle))) : 0
        let slots = (0..<slotCount).map { slot in
            Dictionary(uniqueKeysWithValues: multitouch.map { ($0, libevdev_get_slot_value(handle, UInt32(slot), UInt32($0))) })
        }
        func values(_ type: UInt16, _ codes: some Sequence<UInt16>) -> [UInt16: Int32] {
            Dictionary(uniqueKeysWithValues: codes.map { ($0, libevdev_get_event_value(handle, UInt32(type), UInt32($0))) })
        }
        let axes = (description.codes[EV.abs] ?? []).filter { $0 < ABS.mtSlot || $0 > ABS.mtToolY }
        return EvdevSnapshot(
            slots: slots, currentSlot: Int(max(0, libevdev_get_current_slot(handle))),
            axes: values(EV.abs, axes), keys: values(EV.key, description.codes[EV.key] ?? []))
    }

    /// Everything the device reports, through libevdev's accessors.
    private static func readDescription(_ device: OpaquePointer) -> DeviceDescription {
        var properties = Set<UInt16>()
        for property in 0..<UInt32(INPUT_PROP_CNT) where libevdev_has_property(device, property) != 0 {
            properties.insert(UInt16(property))
        }
        var codes: [UInt16: Set<UInt16>] = [:]
        var absInfo: [UInt16: AbsInfo] = [:]
        for type in 0..<UInt32(EV_CNT) where libevdev_has_event_type(device, type) != 0 {
            var supported = Set<UInt16>()
            let maxCode = libevdev_event_type_get_max(type)
            if maxCode >= 0 {
                for code in 0...UInt32(maxCode) where libevdev_has_event_code(device, type, code) != 0 {
                    supported.insert(UInt16(code))
                    if type == UInt32(EV_ABS), let info = libevdev_get_abs_info(device, code)?.pointee {
                        absInfo[UInt16(code)] = AbsInfo(
                            value: info.value, minimum: info.minimum, maximum: info.maximum,
                            fuzz: info.fuzz, flat: info.flat, resolution: info.resolution)
                    }
                }
            }
            codes[UInt16(type)] = supported
        }
        return DeviceDescription(
            name: libevdev_get_name(device).map { String(cString: $0) } ?? "",
            phys: libevdev_get_phys(device).map { String(cString: $0) },
            bus: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(device)),
            vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(device)),
            product: UInt16(truncatingIfNeeded: libevdev_get_id_product(device)),
            version: UInt16(truncatingIfNeeded: libevdev_get_id_version(device)),
            properties: properties, codes: codes, absInfo: absInfo)
    }
}
