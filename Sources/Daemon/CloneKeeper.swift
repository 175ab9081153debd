import EvdevInput
import GestureCore
import Logging
import Systemd

/// What keeps one of the daemon's uinput devices (a pass-through clone, the pointer beside
/// it) from leaving a touch or a button down when the daemon dies: under systemd its
/// descriptor in the service's file descriptor store (`StoredClone`: the restarted daemon
/// takes it back and releases it, `StoredClones`), else a guard process that writes its
/// release frame (`CloneGuard`). One policy for every such device.
final class CloneKeeper {
    /// Under systemd: the device's descriptor in the store.
    let stored: StoredClone?
    /// Without the store: its guard; nil under systemd, or when no guard could be started (logged).
    private var cloneGuard: CloneGuard?

    /// Keeps `device`, made from `description` (or `adopted`, taken back from the store:
    /// it stays there). `what` names the device in the warning when nothing can keep it.
    init(device: UinputDevice, description: DeviceDescription, adopted: StoredClone?, what: String, deviceName: String, logger: Logger) {
        if let adopted {
            stored = adopted
        } else {
            let name = PassThroughClone.storeName(for: description)
            stored = ServiceManager.store(device.descriptor, name: name) ? StoredClone(name: name, device: device) : nil
        }
        guard stored == nil else { return }
        do {
            cloneGuard = try CloneGuard(clone: device, description: description)
        } catch {
            logger.warning(
                "cannot start the guard of the \(what); if the daemon is killed, what is down at that moment may stay down in the compositor",
                metadata: ["device": "\(deviceName)", "error": "\(error)"])
        }
    }

    /// What keeps the device, for the log.
    var keptBy: String {
        stored.map { "descriptor store (\($0.name))" } ?? (cloneGuard == nil ? "nothing" : "guard process")
    }

    /// The daemon released the device itself: out of the store, the guard let go.
    func release() {
        stored?.remove()
        cloneGuard?.release()
    }
}
