import EvdevInput
import GestureCore
import GestureProtocol
import Logging
import SystemCalls

/// The pointer of a pass-through device whose touches reach the app as a pointer
/// (`app-input = "pointer"`): the uinput pointer device (`PointerClone`) beside the touch
/// clone, and the `PointerEmulator` that turns those touches into clicks, drags and
/// wheel turns. Kept as the clone is (`CloneKeeper`), so a kill releases its buttons.
final class PointerOutput {
    /// The pointer device, e.g. `/dev/input/event10`.
    let device: UinputDevice
    private let keeper: CloneKeeper
    /// Every button up, whatever the emulator knows (`PassThroughClone.releaseFrame`).
    private let releaseFrame: [InputEvent]
    private var emulator = PointerEmulator()
    private var frames = PointerClone.Frames()
    private let logger: Logger
    private let deviceName: String
    private var failedWrites = 0

    /// Creates the pointer described by `description` (`PointerClone.description`), or takes
    /// `adopted` back from the descriptor store. Throws `SystemError` for `/dev/uinput`.
    init(description: DeviceDescription, adopting adopted: StoredClone?, deviceName: String, logger: Logger) throws(SystemError) {
        if let adopted {
            device = adopted.device
        } else {
            device = try UinputDevice(description)
        }
        keeper = CloneKeeper(
            device: device, description: description, adopted: adopted, what: "pass-through pointer", deviceName: deviceName, logger: logger
        )
        releaseFrame = PassThroughClone.releaseFrame(for: description)
        self.logger = logger
        self.deviceName = deviceName
        if logger.logLevel <= .trace {
            emulator.log = { [logger] line in logger.trace("\(line)", metadata: ["device": "\(deviceName)"]) }
        }
        logger.info(
            adopted == nil ? "pass-through pointer created" : "pass-through pointer taken back",
            metadata: [
                "device": "\(deviceName)", "pointer": "\(device.devnode)", "pointer-name": "\(description.name)",
                "kept-by": "\(keeper.keptBy)",
            ])
    }

    /// When the long press of the touch down now is due.
    var nextDeadline: Timestamp? { emulator.nextDeadline }

    /// The pointer touches after a frame (or a change of what touch hygiene hides) at `time`.
    func frame(_ touches: [PointerTouch], at time: Timestamp) {
        write(emulator.frame(touches, at: time), at: time)
    }

    /// The clock reached `time`: a long press due is given.
    func advance(to time: Timestamp) {
        write(emulator.advance(to: time), at: time)
    }

    /// Releases whatever is pressed; the touches down now do nothing more.
    func cancel(at time: Timestamp) {
        write(emulator.cancel(), at: time)
    }

    /// Releases whatever is pressed (and, in one more frame, every button, whatever the
    /// emulator knows), and returns the device to retire.
    func finish(at time: Timestamp) -> UinputDevice {
        write(emulator.finish(), at: time)
        perform(releaseFrame)
        keeper.release()
        logger.info("pass-through pointer removed", metadata: ["device": "\(deviceName)", "pointer": "\(device.devnode)"])
        return device
    }

    private func write(_ steps: [PointerStep], at time: Timestamp) {
        guard !steps.isEmpty else { return }
        perform(frames.events(steps, at: time))
    }

    private func perform(_ events: [InputEvent]) {
        do {
            try device.write(events)
        } catch {
            // As the clone's: only a device being destroyed or a kernel out of memory refuses
            // a write. Logged the first time, then every 1000th.
            if failedWrites % 1000 == 0 {
                logger.warning(
                    "cannot write to the pass-through pointer",
                    metadata: [
                        "device": "\(deviceName)", "pointer": "\(device.devnode)", "error": "\(error)", "failures": "\(failedWrites + 1)",
                    ])
            }
            failedWrites += 1
        }
    }
}
