import EvdevInput
import GestureCore
import Logging
import SystemCalls
import SystemPackage
import Systemd

/// The pass-through clones an earlier process of this service left in systemd's file
/// descriptor store, taken back at start.
///
/// Each is lifted at once: the process that wrote on it died (a crash, SIGKILL, the
/// watchdog) and may have left touches down, which the compositor still holds. The frame
/// lifts every slot the clone's axes allow and releases every key
/// (`PassThroughClone.releaseFrame`, from the clone's description read back from its node):
/// the kernel keeps the clone's slot and key state and drops what changes nothing, so the
/// compositor gets an `up` for exactly the touches that were down, with no state of the dead
/// process needed (a state kept in the store would miss the frames written after it was
/// stored). Then each device that is passed through again claims its clone by name
/// (`claim`): the same node, no device removed and added for the compositor. What no device
/// claims by the end of the start (`closeUnclaimed`), and what is no live clone any more,
/// is closed and taken out of the store, with a log line.
public final class StoredClones {
    private var waiting: [String: UinputDevice] = [:]
    private let logger: Logger

    /// Takes back `passed` (descriptors whose names are clones' names,
    /// `PassThroughClone.isStoreName`) and lifts every touch on each.
    public init(_ passed: [PassedDescriptor], logger: Logger) {
        self.logger = logger
        for descriptor in passed { takeBack(descriptor) }
    }

    private func takeBack(_ passed: PassedDescriptor) {
        guard waiting[passed.name] == nil else {
            // Only closed: it may be a second copy of the clone taken back already.
            try? passed.descriptor.close()
            logger.notice("a second stored descriptor of one pass-through clone; closed", metadata: ["name": "\(passed.name)"])
            return
        }
        let device: UinputDevice
        do {
            device = try UinputDevice(adopting: passed.descriptor)
        } catch {
            try? passed.descriptor.close()
            ServiceManager.removeFromStore(name: passed.name)
            logger.notice(
                "a stored pass-through clone is gone; closed and removed from the descriptor store",
                metadata: ["name": "\(passed.name)", "error": "\(error)"])
            return
        }
        let description: DeviceDescription
        do {
            description = try EvdevDevice(path: device.devnode).description
        } catch {
            ServiceManager.removeFromStore(name: passed.name)
            logger.error(
                "cannot read a stored pass-through clone to lift its touches; removed",
                metadata: ["name": "\(passed.name)", "clone": "\(device.devnode)", "error": "\(error)"])
            return
        }
        guard
            PassThroughClone.originalNode(ofClonePhys: description.phys) != nil
                || PointerClone.originalNode(ofPointerPhys: description.phys) != nil
        else {
            ServiceManager.removeFromStore(name: passed.name)
            logger.notice(
                "a stored descriptor is no pass-through clone; destroyed and removed from the descriptor store",
                metadata: ["name": "\(passed.name)", "device": "\(device.devnode)"])
            return
        }
        do {
            try device.write(PassThroughClone.releaseFrame(for: description))
        } catch {
            logger.error(
                "cannot lift the touches on a stored pass-through clone",
                metadata: ["name": "\(passed.name)", "clone": "\(device.devnode)", "error": "\(error)"])
        }
        waiting[passed.name] = device
        logger.notice(
            "took back the pass-through clone from the descriptor store and lifted every touch on it",
            metadata: ["device": "\(description.name)", "clone": "\(device.devnode)", "name": "\(passed.name)"])
    }

    /// The clone stored under `name`, when there is one not claimed yet.
    func claim(_ name: String) -> StoredClone? {
        waiting.removeValue(forKey: name).map { StoredClone(name: name, device: $0) }
    }

    /// Destroys every clone no device claimed and takes it out of the store (its touches
    /// were lifted when it was taken back).
    public func closeUnclaimed() {
        destroyAll(because: "it matches no device passed through now")
    }

    /// Destroys every clone not claimed yet and takes it out of the store, logging `reason`
    /// (its touches were lifted when it was taken back).
    public func destroyAll(because reason: String) {
        for (name, device) in waiting.sorted(by: { $0.key < $1.key }) {
            ServiceManager.removeFromStore(name: name)
            logger.notice(
                "a stored pass-through clone destroyed and removed from the descriptor store",
                metadata: ["name": "\(name)", "clone": "\(device.devnode)", "reason": "\(reason)"])
        }
        waiting.removeAll()
    }
}
