import CEvdev
import GestureCore
#if canImport(Glibc)
import Glibc
#endif

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
    /// The non-blocking descriptor, for the event loop to poll (sd-event: EPOLLIN).
    public let fileDescriptor: Int32
    private let handle: OpaquePointer
    public private(set) var isGrabbed = false

    /// Opens `path` read-only, non-blocking, close-on-exec and reads its description.
    /// Throws `SystemError` (e.g. `EACCES` when not in group `input`, `ENOTTY` when the node
    /// is not an evdev device).
    public init(path: String) throws(SystemError) {
        let fd = try SystemCall.posixBlocking("open", path: path) {
            open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        }
        var device: OpaquePointer?
        do {
            _ = try SystemCall.negatedErrnoBlocking("libevdev_new_from_fd", path: path) {
                libevdev_new_from_fd(fd, &device)
            }
        } catch {
            close(fd)
            throw error
        }
        guard let device else {
            close(fd)
            throw SystemError(errno: ENOMEM, call: "libevdev_new_from_fd", path: path)
        }
        self.path = path
        self.fileDescriptor = fd
        self.handle = device
        self.description = Self.readDescription(device)
    }

    deinit {
        libevdev_free(handle)
        close(fileDescriptor)
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
    /// On `SYN_DROPPED` (the kernel's buffer overflowed) it delivers a `SYN_DROPPED` event,
    /// then libevdev's synthesized state delta (sync mode) followed by a `SYN_REPORT`, and
    /// carries on reading normally. A consumer cancels on `SYN_DROPPED`, discards until the
    /// next `SYN_REPORT`, and takes the synced state from there.
    public func readAvailable(into deliver: (InputEvent) -> Void) throws(SystemError) -> ReadOutcome {
        var delivered = 0
        var resyncs = 0
        var syncing = false
        var lastWasReport = false
        var event = input_event()
        func emit(_ value: InputEvent) {
            deliver(value)
            delivered += 1
            lastWasReport = value.type == EV.syn && value.code == SYN.report
        }
        while true {
            let flags = syncing ? LIBEVDEV_READ_FLAG_SYNC.rawValue : LIBEVDEV_READ_FLAG_NORMAL.rawValue
            let status: IOResult<Int32>
            do {
                status = try SystemCall.negatedErrno("libevdev_next_event", path: path) {
                    libevdev_next_event(handle, flags, &event)
                }
            } catch where error.errno == ENODEV {
                return .deviceGone
            }
            switch status {
            case .wouldBlock where syncing:
                // The sync delta is drained. libevdev ends a non-empty delta with its own
                // SYN_REPORT; an empty one still needs a frame end for the consumer.
                if !lastWasReport {
                    emit(InputEvent(time: Self.microseconds(event), type: EV.syn, code: SYN.report, value: 0))
                }
                syncing = false
            case .wouldBlock:
                return .drained(events: delivered, resyncs: resyncs)
            case .processed(let code) where code == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue) && !syncing:
                // `event` is the SYN_DROPPED itself; now drain libevdev's synthesized delta.
                emit(Self.inputEvent(event))
                resyncs += 1
                syncing = true
            case .processed:
                emit(Self.inputEvent(event))
            }
        }
    }

    /// Converts a kernel `input_event` (timeval) to an `InputEvent` (microseconds).
    static func inputEvent(_ event: input_event) -> InputEvent {
        InputEvent(time: microseconds(event), type: event.type, code: event.code, value: event.value)
    }

    static func microseconds(_ event: input_event) -> UInt64 {
        UInt64(max(0, event.time.tv_sec)) &* 1_000_000 &+ UInt64(max(0, event.time.tv_usec))
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
            bus: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(device)),
            vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(device)),
            product: UInt16(truncatingIfNeeded: libevdev_get_id_product(device)),
            version: UInt16(truncatingIfNeeded: libevdev_get_id_version(device)),
            properties: properties, codes: codes, absInfo: absInfo)
    }
}
