import EvdevInput
import Systemd

/// A pass-through clone whose uinput descriptor is in the service's file descriptor store
/// (`ServiceManager.store`) under `name`: systemd holds the clone open while the daemon
/// dies and restarts, so the compositor never sees it vanish. Taken out of the store when
/// the daemon lets the clone go itself (`remove()`, or when this is dropped), so that a clone
/// the daemon destroyed is not passed to its next process.
final class StoredClone {
    /// The `FDNAME=` it is stored under (`PassThroughClone.storeName(for:)`).
    let name: String
    let device: UinputDevice
    private var stored = true

    init(name: String, device: UinputDevice) {
        self.name = name
        self.device = device
    }

    /// Closes the store's copy (`FDSTOREREMOVE=1`); the daemon's own stays open.
    func remove() {
        guard stored else { return }
        stored = false
        ServiceManager.removeFromStore(name: name)
    }

    deinit { remove() }
}
