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
    /// The clones an earlier process of the service left in the descriptor store (nil
    /// without systemd's store).
    private let storedClones: StoredClones?
    /// This device's clone taken back from the store, held while pass-through waits for
    /// the device's touches to lift.
    private var claimedClone: StoredClone?
    /// The same for its pointer (`app-input = "pointer"`).
    private var claimedPointer: StoredClone?
    /// Takes a finished clone (its touches lifted) to destroy it a moment later.
    private let retire: (UinputDevice) -> Void
    /// What wake-swallow reads the display from (shared by every device).
    private let screenWake: ScreenWake?
    private let logger: Logger
    public private(set) var unmatchedTouchscreen: UnmatchedTouchscreen?

    /// Opens nothing: takes an opened device the configuration decided to use. `retire`
    /// receives a pass-through clone once its touches are lifted (default: destroy it now).
    /// `storedClones`: where its pass-through clone may be taken back from. `configuration`:
    /// the one `settings` were resolved from (it decides `unmatchedTouchscreen`).
    init(
        evdev: EvdevDevice, paths: [String], settings: ResolvedDeviceSettings, configuration: Configuration, logger: Logger,
        screenWake: ScreenWake? = nil, storedClones: StoredClones? = nil, retire: @escaping (UinputDevice) -> Void = { _ in }
    ) throws(SystemError) {
        self.evdev = evdev
        self.storedClones = storedClones
        self.paths = paths
        self.logger = logger
        self.screenWake = screenWake
        self.retire = retire
        let kind: DeviceInfo.Kind = evdev.description.kind == .touchpad ? .touchpad : .touchscreen
        device = DeviceInfo(name: evdev.description.name, kind: kind, path: evdev.path)
        pipeline = DevicePipeline(evdev.description, settings: settings)
        Self.logCalibration(settings, device: device.name, logger: logger)
        noteUnmatched(settings, configuration)
        try evdev.useMonotonicClock()
        applyPassThrough(settings, now: nil)
        try applyGrab(grabWanted(settings))
    }

    /// The node of the pass-through clone, when there is one.
    public var clonePath: String? { passThrough?.clone.devnode }

    public var fileDescriptor: FileDescriptor? { evdev.fileDescriptor }
    /// The node of the pass-through pointer (`app-input = "pointer"`), when there is one.
    public var pointerPath: String? { passThrough?.pointerPath }

    /// The engine's next deadline, or the pass-through pointer's long press when earlier.
    public var nextDeadline: Timestamp? {
        let engine = DevicePipeline.nextDeadline(of: &pipeline)
        guard let pointer = passThrough?.nextDeadline else { return engine }
        return engine.map { min($0, pointer) } ?? pointer
    }
    public var ghosts: [GhostSeries] { pipeline.hygiene.ghostSeries(device: device.name) }

    /// Decides whether this is a touchscreen the entries miss, and says so in the log.
    private func noteUnmatched(_ settings: ResolvedDeviceSettings, _ configuration: Configuration) {
        unmatchedTouchscreen = UnmatchedTouchscreen.check(evdev.description, settings: settings, in: configuration)
        if let unmatched = unmatchedTouchscreen {
            logger.warning(
                "\(unmatched.message)",
                metadata: [
                    "node": "\(evdev.path)", "device": "\(unmatched.deviceName)", "suggested-match-name": "\(unmatched.suggestedPattern)",
                ])
        }
    }

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
    /// dynamically checked access per event (some twenty a five-finger frame).
    private static func read(
        _ evdev: EvdevDevice, into pipeline: inout DevicePipeline, passThrough: PassThroughOutput?, sink: inout DaemonSink
    ) throws(SystemError) -> ReadOutcome {
        try evdev.readAvailable { event in
            // The pipeline first: its touch hygiene says which touches the clone hides.
            pipeline.feed(event, into: &sink)
            passThrough?.feed(event, hidden: pipeline.hiddenTouches)
        }
    }

    /// An engine timer is due. Input the kernel has queued meanwhile happened before `now`,
    /// so it is processed first: when the loop runs late, a lift stamped before a long
    /// press's deadline must still make a tap, and the timer must not overtake it.
    public func deadlineReached(now: Timestamp, into sink: inout DaemonSink) -> InputStatus {
        if case .finished(let reason) = readAvailable(now: now, into: &sink) { return .finished(reason: reason) }
        pipeline.advance(to: now, into: &sink)
        passThrough?.hiddenTouchesChanged(pipeline.hiddenTouches, at: now)
        passThrough?.deadlineReached(now: now)
        return .active
    }

    public func reconfigure(_ configuration: Configuration, now: Timestamp, into sink: inout DaemonSink) -> InputStatus {
        pipeline.cancelAll(at: now, into: &sink)
        let system = SystemCalibration.matrix(devnode: evdev.path, device: device.name, logger: logger)
        switch configuration.useDecision(for: evdev.description, paths: paths, systemCalibration: system) {
        case .use(let settings):
            Self.logCalibration(settings, device: device.name, logger: logger)
            noteUnmatched(settings, configuration)
            pipeline = DevicePipeline(evdev.description, settings: settings, replacing: pipeline)
            applyPassThroughAndGrab(settings, now: now)
            return .active
        case let decision:
            return .finished(reason: decision.reason ?? "not used")
        }
    }

    public func close(now: Timestamp, into sink: inout DaemonSink) {
        pipeline.cancelAll(at: now, into: &sink)
        if let output = passThrough { output.finish(at: now).forEach(retire) }
        passThrough = nil
        claimedClone = nil
        claimedPointer = nil
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
        case (true, let output?)
        where output.keepsPointer != settings.passThroughPointer || output.screen != screenOrientation(settings)
            || output.cloneName != settings.cloneName:
            // The clone's capabilities, axes, coordinates and name cannot change: a new clone
            // replaces it.
            output.finish(at: now ?? .zero).forEach(retire)
            passThrough = nil
            applyPassThrough(settings, now: now)
        case (true, let output?):
            if let unused = output.reconfigure(PassThroughPolicy(settings), at: now ?? .zero) { retire(unused) }
        case (true, nil):
            let screen = screenOrientation(settings)
            let name = PassThroughOutput.storeName(
                original: evdev.description, node: evdev.path, keepPointer: settings.passThroughPointer, screen: screen,
                cloneName: settings.cloneName)
            if claimedClone?.name != name { claimedClone = storedClones?.claim(name) }
            let policy = PassThroughPolicy(settings)
            if policy.app.usesPointer {
                let pointerName = PassThroughOutput.pointerStoreName(
                    original: evdev.description, node: evdev.path, cloneName: settings.cloneName)
                if claimedPointer?.name != pointerName { claimedPointer = storedClones?.claim(pointerName) }
            } else {
                claimedPointer = nil
            }
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
                    original: evdev.description, node: evdev.path, keepPointer: settings.passThroughPointer, screen: screen,
                    cloneName: settings.cloneName, current: current, policy: policy, screenWake: screenWake,
                    adopting: claimedClone, adoptingPointer: claimedPointer, logger: logger)
                claimedClone = nil
                claimedPointer = nil
                if screen != nil { warnOfSecondCalibration() }
            } catch {
                logger.error(
                    "cannot create the pass-through clone; reading the device without grabbing it, so the compositor still sees every touch",
                    metadata: ["device": "\(device.name)", "error": "\(error)"])
            }
        case (false, let output?):
            output.finish(at: now ?? .zero).forEach(retire)
            passThrough = nil
        case (false, nil):
            claimedClone = nil
            claimedPointer = nil
        }
    }

    /// The screen orientation the clone reports in (`clone-orientation`), nil for the
    /// panel's own.
    private func screenOrientation(_ settings: ResolvedDeviceSettings) -> ScreenOrientedClone? {
        ScreenOrientedClone(settings.cloneOrientation, device: evdev.description, geometry: settings.geometry)
    }

    /// A screen-oriented clone carries the panel's name and ids, so a udev
    /// `LIBINPUT_CALIBRATION_MATRIX` keyed on them is given to the clone too, and libinput
    /// would apply it on top of the daemon's transform: said in the log, never silently.
    private func warnOfSecondCalibration() {
        guard let matrix = SystemCalibration.lookup(devnode: evdev.path).matrix else { return }
        logger.warning(
            "\(ScreenOrientedClone.udevMatrixWarning)",
            metadata: ["device": "\(device.name)", "matrix": "\(matrix.map(DeviceGeometry.shortNumber).joined(separator: " "))"])
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
