import EvdevInput
import GestureCore
import GestureProtocol
import Glibc
import Logging
import SystemCalls
import SystemPackage
import Systemd

/// Finds the touch devices to read and follows hot-plug: a scan of the input directory at
/// start (no device at all is fine), then changes from udev through an sd-device monitor (`UdevMonitor`)
/// when udev runs (`/run/udev/control` exists; its events come after udev set permissions
/// and made the by-id links), else from inotify on the input directory.
public final class LiveDevices {
    private let daemon: Daemon
    private let directory: String
    private var logger: Logger
    private var inotify: InputDirectoryWatcher?
    private var inotifyWatch: IOWatch?
    private var udev: UdevMonitor?
    private var retirement: CloneRetirement?
    private let screenWake: ScreenWake
    /// The clones taken back from systemd's descriptor store, for the devices to claim.
    private let storedClones: StoredClones?

    /// How hot-plug is followed.
    public enum HotPlug: String, Sendable {
        case udev, inotify
    }

    public private(set) var hotPlug: HotPlug?

    /// The loop has stopped: the pass-through clones removed last (at the stop) are kept
    /// for their linger, so readers can read their lifts, then destroyed.
    public func releaseRetiredClones() {
        retirement?.waitAndRelease()
        CloneGuard.reapAll()
    }

    /// The daemon went idle (no touch for `idle-timeout`): every pass-through device with
    /// `wake-swallow` reserves its next touch, so the touch that wakes the screen presses nothing.
    public func daemonBecameIdle() {
        for source in evdevSources { source.idle() }
    }

    /// The live devices the daemon reads (its sources are the one list of them).
    private var evdevSources: [EvdevSource] { daemon.activeSources.compactMap { $0 as? EvdevSource } }

    /// The source reading the node at `path`, if any.
    private func source(at path: String) -> EvdevSource? {
        evdevSources.first { $0.device.path == path }
    }

    /// `storedClones`: the pass-through clones an earlier process of the service left in
    /// systemd's descriptor store; what no device claims at the start is destroyed.
    public init(daemon: Daemon, directory: String = DeviceDiscovery.inputDirectory, storedClones: StoredClones? = nil, logger: Logger) {
        self.daemon = daemon
        self.storedClones = storedClones
        self.directory = directory
        self.logger = logger
        screenWake = ScreenWake(loop: daemon.loop, logger: logger)
        daemon.observe { [unowned self] change in
            switch change {
            case .configurationChanged:
                // A reload that turns wake-swallow (or pass-through) on while idle arms it now.
                if daemon.isIdle { daemonBecameIdle() }
                rescan()
            case .wentIdle:
                daemonBecameIdle()
            case .sourceRemoved, .clientsChanged, .clientSubscribed:
                break
            }
        }
        do {
            retirement = try CloneRetirement(loop: daemon.loop)
        } catch {
            logger.warning("no timer for retiring pass-through clones; they go at once", metadata: ["error": "\(error)"])
        }
    }

    /// Starts following hot-plug, then adds every usable device present now.
    /// `preferUdev: false` forces inotify.
    public func start(preferUdev: Bool = true) throws(SystemError) {
        if preferUdev, directory == DeviceDiscovery.inputDirectory, RegularFile.anythingExists(path: "/run/udev/control") {
            do {
                udev = try UdevMonitor(loop: daemon.loop) { [unowned self] change in apply(change) }
                hotPlug = .udev
            } catch {
                logger.warning("no udev monitor, using inotify", metadata: ["error": "\(error)"])
            }
        }
        if udev == nil {
            let watcher = try InputDirectoryWatcher(directory: directory)
            inotify = watcher
            inotifyWatch = try daemon.loop.watch(watcher.fileDescriptor, events: .readable) { [unowned self] _ in
                readInotify()
            }
            hotPlug = .inotify
        }
        logger.info("following hot-plug", metadata: ["via": "\(hotPlug?.rawValue ?? "-")", "directory": "\(directory)"])
        rescan()
        storedClones?.closeUnclaimed()
    }

    /// Adds every usable device not read yet (at start, after a reload, after lost events).
    public func rescan() {
        let scan: DeviceScan
        do {
            scan = try DeviceDiscovery.scan(directory)
        } catch {
            logger.warning("cannot scan input devices", metadata: ["directory": "\(directory)", "error": "\(error)"])
            return
        }
        switch scan {
        case .noInputDirectory:
            logger.info("no input directory yet; waiting for devices", metadata: ["directory": "\(directory)"])
        case .nodes(let nodes):
            for node in nodes where source(at: node.path) == nil {
                consider(node)
            }
        }
    }

    private func readInotify() {
        guard let inotify else { return }
        do {
            for change in try inotify.readChanges() { apply(change) }
        } catch {
            logger.error("hot-plug watch failed", metadata: ["error": "\(error)"])
        }
    }

    private func apply(_ change: DeviceChange) {
        logger.debug("device change", metadata: ["change": "\(change)"])
        switch change {
        case .added(let path), .attributesChanged(let path):
            guard source(at: path) == nil else { return }
            // A single node: scan for its stable links (udev may have made them by now).
            guard case .nodes(let nodes)? = try? DeviceDiscovery.scan(directory),
                let node = nodes.first(where: { $0.path == path })
            else { return }
            consider(node)
        case .removed(let path):
            if let gone = source(at: path) {
                daemon.remove(gone, reason: "device node removed")
            }
        case .inputDirectoryAppeared, .overflow:
            rescan()
        case .inputDirectoryRemoved:
            for source in evdevSources {
                daemon.remove(source, reason: "input directory removed")
            }
        }
    }

    /// Opens `node`, decides with the configuration, and adds it when it is to be used.
    private func consider(_ node: DeviceNode) {
        let opened: Result<EvdevDevice, SystemError>
        do {
            opened = .success(try EvdevDevice(path: node.path))
        } catch {
            opened = .failure(error)
        }
        let system = (try? opened.get()).flatMap {
            SystemCalibration.matrix(devnode: node.path, device: $0.description.name, logger: logger)
        }
        let decision = daemon.configuration.useDecision(for: opened.map(\.description), paths: node.allPaths, systemCalibration: system)
        guard case .use(let settings) = decision, case .success(let evdev) = opened else {
            let level: Logger.Level = if case .cannotOpen = decision { .warning } else { .debug }
            logger.log(level: level, "not using device", metadata: ["node": "\(node.path)", "reason": "\(decision.reason ?? "")"])
            return
        }
        do {
            let source = try EvdevSource(
                evdev: evdev, paths: node.allPaths, settings: settings, configuration: daemon.configuration, logger: logger,
                screenWake: screenWake,
                storedClones: storedClones, retire: { [weak self] clone in self?.retirement?.retire(clone) })
            try daemon.add(source)
            if daemon.isIdle { source.idle() }
        } catch {
            logger.warning("cannot use device", metadata: ["node": "\(node.path)", "error": "\(error)"])
        }
    }
}
