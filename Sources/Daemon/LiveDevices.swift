import CSystemCalls
import EvdevInput
import GestureCore
import GestureProtocol
import Glibc
import Logging
import SystemCalls
import SystemPackage

/// One evdev touch device read live: libevdev (non-blocking, CLOCK_MONOTONIC timestamps,
/// optionally grabbed) feeding a `DevicePipeline` with the settings the configuration
/// resolves for it.
///
/// `SYN_DROPPED`: `EvdevDevice` delivers it followed by libevdev's resync delta; the
/// tracker cancels every contact (so gestures in flight end `cancelled`) and picks up the
/// contacts still down as unobserved ones. Unplugged (`ENODEV`): gestures in flight are
/// cancelled and the source finishes.
public final class EvdevSource: InputSource {
    public let device: DeviceInfo
    /// The node and its stable links (what `[[device]] path = …` may name).
    public let paths: [String]
    private let evdev: EvdevDevice
    private var pipeline: DevicePipeline
    private var passThrough: PassThroughOutput?
    /// Pass-through settings that wait for the device's touches to lift before the clone is
    /// made and the device grabbed (`applyPassThrough`); nil when nothing waits.
    private var passThroughAfterLift: ResolvedDeviceSettings?
    /// Takes a finished clone (its touches lifted) to destroy it a moment later.
    private let retire: (UinputDevice) -> Void
    /// What wake-swallow reads the display from (shared by every device).
    private let screenWake: ScreenWake?
    private let logger: Logger

    /// Opens nothing: takes an opened device the configuration decided to use. `retire`
    /// receives a pass-through clone once its touches are lifted (default: destroy it now).
    init(
        evdev: EvdevDevice, paths: [String], settings: ResolvedDeviceSettings, logger: Logger,
        screenWake: ScreenWake? = nil, retire: @escaping (UinputDevice) -> Void = { _ in }
    ) throws(SystemError) {
        self.evdev = evdev
        self.paths = paths
        self.logger = logger
        self.screenWake = screenWake
        self.retire = retire
        let kind: DeviceInfo.Kind = evdev.description.kind == .touchpad ? .touchpad : .touchscreen
        device = DeviceInfo(name: evdev.description.name, kind: kind, path: evdev.path)
        pipeline = DevicePipeline(evdev.description, settings: settings)
        Self.logCalibration(settings, device: device.name, logger: logger)
        try evdev.useMonotonicClock()
        applyPassThrough(settings, now: nil)
        try applyGrab(grabWanted(settings))
    }

    /// The node of the pass-through clone, when there is one.
    public var clonePath: String? { passThrough?.clone.devnode }

    public var fileDescriptor: FileDescriptor? { evdev.fileDescriptor }
    public var nextDeadline: Timestamp? { DevicePipeline.nextDeadline(of: &pipeline) }

    /// Says which calibration a device uses when it is not the identity.
    private static func logCalibration(_ settings: ResolvedDeviceSettings, device: String, logger: Logger) {
        let geometry = settings.geometry
        guard geometry.calibrationSource != .builtIn else { return }
        logger.info(
            "calibration",
            metadata: [
                "device": "\(device)", "source": "\(geometry.calibrationSource.rawValue)",
                "matrix": "\(geometry.calibration.map(DeviceGeometry.shortNumber).joined(separator: " "))",
            ])
    }

    public func readAvailable(now: Timestamp, into sink: inout DaemonSink) -> InputStatus {
        let outcome: ReadOutcome
        do {
            outcome = try Self.read(evdev, into: &pipeline, passThrough: passThrough, sink: &sink)
        } catch {
            pipeline.cancelAll(at: now, into: &sink)
            return .finished(reason: "read failed: \(error)")
        }
        if let settings = passThroughAfterLift, !evdev.snapshot().hasTouchDown {
            applyPassThroughAndGrab(settings, now: now)
        }
        switch outcome {
        case .drained(_, let resyncs):
            if resyncs > 0 {
                sink.resynchronised(resyncs)
                logger.notice(
                    "events dropped by the kernel; resynchronised, gestures in flight cancelled",
                    metadata: ["device": "\(device.name)", "resyncs": "\(resyncs)"])
            }
            return .active
        case .deviceGone:
            pipeline.cancelAll(at: now, into: &sink)
            return .finished(reason: "device unplugged")
        }
    }

    /// Feeds everything `evdev` has to `pipeline` (and the clone). The pipeline is an `inout`
    /// argument: one exclusive access to the source's stored pipeline for the whole read,
    /// checked statically inside, where the closure reaching the stored property took a
    /// dynamically checked access per event (some twenty a five-finger frame, issue 21).
    private static func read(
        _ evdev: EvdevDevice, into pipeline: inout DevicePipeline, passThrough: PassThroughOutput?, sink: inout DaemonSink
    ) throws(SystemError) -> ReadOutcome {
        try evdev.readAvailable { event in
            // The pipeline first: its touch hygiene says which touches the clone hides.
            pipeline.feed(event, touchesInto: &sink)
            passThrough?.feed(event, hidden: pipeline.hiddenTouches)
        }
    }

    /// An engine timer is due. Input the kernel has queued meanwhile happened before `now`,
    /// so it is processed first: when the loop runs late, a lift stamped before a long
    /// press's deadline must still make a tap, and the timer must not overtake it.
    public func deadlineReached(now: Timestamp, into sink: inout DaemonSink) -> InputStatus {
        if case .finished(let reason) = readAvailable(now: now, into: &sink) { return .finished(reason: reason) }
        pipeline.advance(to: now, touchesInto: &sink)
        passThrough?.hiddenTouchesChanged(pipeline.hiddenTouches, at: now)
        return .active
    }

    public func reconfigure(_ configuration: Configuration, now: Timestamp, into sink: inout DaemonSink) -> InputStatus {
        pipeline.cancelAll(at: now, into: &sink)
        let system = SystemCalibration.matrix(devnode: evdev.path, device: device.name, logger: logger)
        switch configuration.useDecision(for: evdev.description, paths: paths, systemCalibration: system) {
        case .use(let settings):
            Self.logCalibration(settings, device: device.name, logger: logger)
            pipeline = DevicePipeline(evdev.description, settings: settings, replacing: pipeline)
            applyPassThroughAndGrab(settings, now: now)
            return .active
        case let decision:
            return .finished(reason: decision.reason ?? "not used")
        }
    }

    public func close(now: Timestamp, into sink: inout DaemonSink) {
        pipeline.cancelAll(at: now, into: &sink)
        if let output = passThrough { retire(output.finish(at: now)) }
        passThrough = nil
        if evdev.isGrabbed { try? evdev.ungrab() }
    }

    /// The daemon went idle: a pass-through device with wake-swallow reserves its next touch.
    public func idle() {
        passThrough?.idle()
    }

    /// Creates, reconfigures or removes the clone as `settings` say. `now` is nil at start
    /// (no clone to finish yet). A clone that cannot be created is logged; the device is then
    /// read without a grab (`grabWanted`), so the compositor keeps every touch rather than none.
    ///
    /// While a touch is down on the device (the daemon starts, or restarts after a crash,
    /// or a reload turns pass-through on, with a finger on the screen), the compositor has
    /// that touch from the device itself: a grab now would cut it off before its lift, and
    /// the app would keep it down forever. So the clone is made and the device grabbed only
    /// once every touch has lifted (`passThroughAfterLift`); until then the device is read
    /// ungrabbed, its gestures recognised as usual.
    private func applyPassThrough(_ settings: ResolvedDeviceSettings, now: Timestamp?) {
        passThroughAfterLift = nil
        switch (settings.passThrough, passThrough) {
        case (true, let output?) where output.keepsPointer != settings.passThroughPointer:
            // The clone's capabilities cannot change: a new clone replaces it.
            retire(output.finish(at: now ?? .zero))
            passThrough = nil
            applyPassThrough(settings, now: now)
        case (true, let output?):
            output.reconfigure(PassThroughPolicy(settings))
        case (true, nil):
            let current = evdev.snapshot()
            guard !current.hasTouchDown else {
                passThroughAfterLift = settings
                logger.notice(
                    "pass-through waits for the touches on the device to lift before grabbing it (the compositor has them already)",
                    metadata: ["device": "\(device.name)"])
                return
            }
            do {
                passThrough = try PassThroughOutput(
                    original: evdev.description, node: evdev.path, keepPointer: settings.passThroughPointer, current: current,
                    policy: PassThroughPolicy(settings), screenWake: screenWake, logger: logger)
            } catch {
                logger.error(
                    "cannot create the pass-through clone; reading the device without grabbing it, so the compositor still sees every touch",
                    metadata: ["device": "\(device.name)", "error": "\(error)"])
            }
        case (false, let output?):
            retire(output.finish(at: now ?? .zero))
            passThrough = nil
        case (false, nil):
            break
        }
    }

    /// `applyPassThrough`, then the grab it implies; a grab that cannot change is logged
    /// (the device is read as it was).
    private func applyPassThroughAndGrab(_ settings: ResolvedDeviceSettings, now: Timestamp) {
        applyPassThrough(settings, now: now)
        do {
            try applyGrab(grabWanted(settings))
        } catch {
            logger.warning("cannot change the grab", metadata: ["device": "\(device.name)", "error": "\(error)"])
        }
    }

    /// Pass-through grabs only once its clone exists: a grab without the clone would leave
    /// the compositor with no touch at all.
    private func grabWanted(_ settings: ResolvedDeviceSettings) -> Bool {
        settings.passThrough ? passThrough != nil : settings.grab
    }

    private func applyGrab(_ wanted: Bool) throws(SystemError) {
        guard wanted != evdev.isGrabbed else { return }
        if wanted { try evdev.grab() } else { try evdev.ungrab() }
    }
}

/// Finds the touch devices to read and follows hot-plug: a scan of the input directory at
/// start (no device at all is fine), then changes from udev through a libudev monitor (`UdevMonitor`)
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

    public init(daemon: Daemon, directory: String = DeviceDiscovery.inputDirectory, logger: Logger) {
        self.daemon = daemon
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
            inotifyWatch = try daemon.loop.watch(watcher.fileDescriptor, events: UInt32(EPOLLIN.rawValue)) { [unowned self] _ in
                readInotify()
            }
            hotPlug = .inotify
        }
        logger.info("following hot-plug", metadata: ["via": "\(hotPlug?.rawValue ?? "-")", "directory": "\(directory)"])
        rescan()
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
                evdev: evdev, paths: node.allPaths, settings: settings, logger: logger, screenWake: screenWake,
                retire: { [weak self] clone in self?.retirement?.retire(clone) })
            try daemon.add(source)
            if daemon.isIdle { source.idle() }
        } catch {
            logger.warning("cannot use device", metadata: ["node": "\(node.path)", "error": "\(error)"])
        }
    }
}

/// Keeps finished pass-through clones for `linger` before destroying them. The kernel
/// discards a vanished device's unread events, so a clone destroyed in the same instant its
/// touches were lifted could leave a reader (the compositor) that had not read the lifts yet
/// with a finger down. Released by a loop timer, or all at once by `waitAndRelease` after
/// the loop stopped.
final class CloneRetirement {
    static let linger = TimeSpan(microseconds: 250_000)
    private var retired: [(clone: UinputDevice, until: UInt64)] = []
    private var timer: LoopTimer?
    private unowned let loop: EventLoop

    init(loop: EventLoop) throws(SystemError) {
        self.loop = loop
        timer = try loop.timer { [unowned self] now in release(dueBy: now) }
    }

    func retire(_ clone: UinputDevice) {
        let until = loop.now + Self.linger.microseconds
        retired.append((clone, until))
        if timer?.deadline == nil { try? timer?.schedule(at: until) }
    }

    /// A timer that cannot be armed leaves the clones for `waitAndRelease` at the stop.
    private func release(dueBy now: UInt64) {
        retired.removeAll { $0.until <= now }
        try? timer?.schedule(at: retired.first?.until)
    }

    /// After the loop stopped: waits out the last clone's linger, then destroys them all.
    func waitAndRelease() {
        guard let last = retired.last?.until else { return }
        let now = monotonicMicroseconds()
        if last > now { sleepMicroseconds(last - now) }
        retired.removeAll()
    }
}
