import EvdevInput
import GestureCore
import GestureProtocol
import Logging
import SystemCalls
import Systemd

/// The pass-through half of a grabbed device (`[[device]] pass-through = true`): its uinput
/// clone and the filter that decides what of each frame the clone shows. Every frame is
/// written on the clone as soon as its `SYN_REPORT` is read, in one `write(2)`; the kernel
/// stamps the clone's events with the time they were re-emitted.
final class PassThroughOutput {
    /// The clone, e.g. `/dev/input/event9`; removed when this is released.
    let clone: UinputDevice
    /// Whether the clone keeps the original's pointer capabilities (`pass-through-pointer`):
    /// a reload that changes it makes a new clone.
    let keepsPointer: Bool
    /// The clone's own name (`clone-name`), nil when it has the original's: a reload that
    /// changes it makes a new clone.
    let cloneName: String?
    /// The screen orientation the clone reports in (`clone-orientation = "screen"`), nil for
    /// the panel's own: a reload that changes it makes a new clone.
    let screen: ScreenOrientedClone?
    /// Under systemd the clone's descriptor in the service's file descriptor store, so the
    /// clone outlives the daemon and its next process takes it back (`StoredClones`); run by
    /// hand, its guard, which lifts the clone's touches if the daemon dies without doing it.
    private let keeper: CloneKeeper
    /// The pointer the touches with `app-input = "pointer"` drive; nil when no touch of the
    /// device can reach the app as a pointer.
    private var pointer: PointerOutput?
    /// The pointer's description (for the device at this node, named after the clone).
    private let pointerDescription: DeviceDescription
    private var filter: PassThroughFilter
    /// The display's power and the wake key, for wake-swallow.
    private let screenWake: ScreenWake?
    private let logger: Logger
    private let deviceName: String
    private var failedWrites = 0

    /// Creates the clone of `original`. Throws `SystemError` for `/dev/uinput` (`ENOENT`: no
    /// uinput in this kernel, `EACCES`: the daemon may not create input devices).
    /// `current`: the original's state now (it may have touches down, and the kernel will
    /// not repeat axes that do not change).
    /// `node`: the original's node (the clone's `phys` names it); `keepPointer`: the clone
    /// keeps the original's pointer buttons and relative axes (`pass-through-pointer`);
    /// `screen`: the clone reports screen-oriented positions (`clone-orientation`);
    /// `cloneName`: the clone's name instead of the original's (`clone-name`).
    /// `screenWake`: what wake-swallow reads the display from and tells the compositor
    /// through (nil: only the daemon's idle timeout arms it, and nothing is told).
    /// `adopting`: the clone an earlier process of the service stored under this clone's
    /// name (`storeName`), taken back and lifted; used instead of a new one.
    /// `adoptingPointer`: the same for the pointer (`pointerStoreName`), when the policy
    /// needs one (`AppTouchPolicy.usesPointer`).
    init(
        original: DeviceDescription, node: String, keepPointer: Bool, screen: ScreenOrientedClone?, cloneName: String? = nil,
        current: EvdevSnapshot, policy: PassThroughPolicy, screenWake: ScreenWake? = nil, adopting adopted: StoredClone? = nil,
        adoptingPointer adoptedPointer: StoredClone? = nil, logger: Logger
    ) throws(SystemError) {
        let description = PassThroughClone.description(
            cloning: original, node: node, keepPointer: keepPointer, screen: screen, name: cloneName)
        keepsPointer = keepPointer
        self.screen = screen
        self.cloneName = cloneName
        if let adopted {
            clone = adopted.device
        } else {
            clone = try UinputDevice(description)
        }
        keeper = CloneKeeper(
            device: clone, description: description, adopted: adopted, what: "pass-through clone", deviceName: original.name, logger: logger
        )
        pointerDescription = PointerClone.description(node: node, cloneName: description.name)
        if policy.app.usesPointer {
            pointer = try PointerOutput(
                description: pointerDescription, adopting: adoptedPointer, deviceName: original.name, logger: logger)
        }
        filter = PassThroughFilter(device: original, policy: policy, current: current, screen: screen)
        self.screenWake = screenWake
        deviceName = original.name
        self.logger = logger
        if logger.logLevel <= .trace {
            filter.log = { [logger] line in logger.trace("\(line)", metadata: ["device": "\(original.name)"]) }
        }
        if policy.wakeSwallow { prepareWake() }
        logger.info(
            adopted == nil ? "pass-through clone created" : "pass-through clone taken back",
            metadata: [
                "device": "\(original.name)", "clone": "\(clone.devnode)", "clone-name": "\(description.name)",
                "kept-by": "\(keeper.keptBy)",
                "reserved-regions": "\(policy.reserved.map(\.name))",
                "wake-swallow": "\(policy.wakeSwallow)",
                "app-fingers": "\(policy.app.device.fingers.map(String.init) ?? "no limit")",
                "app-long-press": "\(policy.app.device.longPress ?? true)",
                "orientation": screen.map { "screen (rotation \($0.transform.rotation.rawValue))" } ?? "panel",
                "pointer": keepPointer || !PassThroughClone.hasPointerCapabilities(original) ? "as the device" : "removed (touch only)",
                "app-input": "\(policy.app.usesPointer ? "pointer where app-input = \"pointer\"" : "touch")",
            ])
    }

    /// One event of the original device; `hidden`: the touches touch hygiene hides now.
    /// With wake-swallow, a frame that begins a touch has the display read before its
    /// `SYN_REPORT`, and each wake touch swallowed is told to the compositor.
    /// The pointer touches (`app-input = "pointer"`) drive the pointer after each frame; on
    /// `SYN_DROPPED` its buttons are released and the touches down do nothing more.
    func feed(_ event: InputEvent, hidden: HiddenTouches = .none) {
        guard event.type == EV.syn, event.code == SYN.report else {
            if event.type == EV.syn, event.code == SYN.dropped { pointer?.cancel(at: event.time) }
            perform(filter.feed(event, hidden: hidden))
            return
        }
        if let screenWake {
            if filter.wantsDisplayPower { filter.displayPower(screenWake.displayPower()) }
            decidingWakeTouches { perform(filter.feed(event, hidden: hidden)) }
        } else {
            perform(filter.feed(event, hidden: hidden))
        }
        pointer?.frame(filter.pointerTouches, at: event.time)
    }

    /// When the pointer's long press is due (`deadlineReached`), nil when none waits.
    var nextDeadline: Timestamp? { pointer?.nextDeadline }

    /// The loop's clock reached `now`: a long press due on the pointer is given.
    func deadlineReached(now: Timestamp) {
        pointer?.advance(to: now)
    }

    /// Runs `step` (a frame, or touch hygiene's deadline, which may decide a held touch) and,
    /// with wake-swallow, tells the compositor of each wake touch it swallowed, logging when
    /// wake-swallow failed safe during it.
    private func decidingWakeTouches(_ step: () -> Void) {
        guard let screenWake else { return step() }
        let wakeTouches = filter.wakeTouchCount
        let forwarded = filter.forwardedWakeTouchCount
        let signal = filter.wakeSignal
        step()
        if filter.wakeTouchCount != wakeTouches { screenWake.wakeTouched() }
        if case .unavailable(.displayStayedOff(let span)) = filter.wakeSignal, filter.wakeSignal != signal {
            logger.error(
                "the display still reads off after a swallowed wake touch: the compositor did not wake on the wake key; touches on the dark display are forwarded from now on (they wake the compositor, and the app gets them)",
                metadata: ["device": "\(deviceName)", "after": "\(Int(span.milliseconds)) ms"])
        }
        if filter.forwardedWakeTouchCount != forwarded {
            logger.warning(
                "wake-swallow forwarded a touch on the dark display: the compositor cannot be made to wake otherwise",
                metadata: ["device": "\(deviceName)", "forwarded": "\(filter.forwardedWakeTouchCount)"])
        }
    }

    /// Wake-swallow is on: the wake key is made; without one, touches on a dark display
    /// are forwarded (fail-safe).
    private func prepareWake() {
        guard let screenWake else { return }
        if !screenWake.prepare() { filter.wakeSignalUnavailable(.noWakeKey) }
    }

    /// Touch hygiene changed what it hides at a deadline (a held touch accepted, a stuck one
    /// ended): the clone shows it now. A touch held back at its touch-down (`shortest-contact`,
    /// `hold-duration`) is decided now, and may be the wake touch: the compositor is told.
    func hiddenTouchesChanged(_ hidden: HiddenTouches, at time: Timestamp) {
        decidingWakeTouches { perform(filter.hiddenTouchesChanged(hidden, at: time)) }
        pointer?.frame(filter.pointerTouches, at: time)
    }

    /// New regions or wake-swallow for touches that begin from now on. The pointer's
    /// buttons are released (the touches down do nothing more on it); a pointer no touch can
    /// drive any more is returned, to be retired, and one newly needed is made (logged when
    /// it cannot be: those touches then reach nothing).
    func reconfigure(_ policy: PassThroughPolicy, at time: Timestamp) -> UinputDevice? {
        filter.reconfigure(policy)
        if policy.wakeSwallow { prepareWake() }
        pointer?.cancel(at: time)
        switch (policy.app.usesPointer, pointer) {
        case (true, nil):
            do {
                pointer = try PointerOutput(description: pointerDescription, adopting: nil, deviceName: deviceName, logger: logger)
            } catch {
                logger.error(
                    "cannot create the pass-through pointer; touches with app-input = \"pointer\" reach nothing",
                    metadata: ["device": "\(deviceName)", "error": "\(error)"])
            }
            return nil
        case (false, let output?):
            pointer = nil
            return output.finish(at: time)
        case (true, _?), (false, nil):
            return nil
        }
    }

    /// The name the pointer beside the clone of `original` at `node` is stored under.
    static func pointerStoreName(original: DeviceDescription, node: String, cloneName: String?) -> String {
        PassThroughClone.storeName(for: PointerClone.description(node: node, cloneName: cloneName ?? original.name))
    }

    /// The name the clone of `original` at `node` is stored under.
    static func storeName(original: DeviceDescription, node: String, keepPointer: Bool, screen: ScreenOrientedClone?, cloneName: String?)
        -> String
    {
        PassThroughClone.storeName(
            for: PassThroughClone.description(cloning: original, node: node, keepPointer: keepPointer, screen: screen, name: cloneName))
    }

    /// The daemon went idle: with wake-swallow, the next touch is reserved.
    func idle() {
        filter.idle()
    }

    /// Lifts every touch and releases every key on the clone (and every button on the
    /// pointer), and returns the clone and the pointer for `LiveDevices` to keep a moment
    /// longer (`CloneRetirement`) before they are destroyed.
    func finish(at time: Timestamp) -> [UinputDevice] {
        perform(filter.finish(at: time))
        keeper.release()
        logger.info("pass-through clone removed", metadata: ["device": "\(deviceName)", "clone": "\(clone.devnode)"])
        let retired = [clone] + (pointer.map { [$0.finish(at: time)] } ?? [])
        pointer = nil
        return retired
    }

    /// The pointer's node, when there is one.
    var pointerPath: String? { pointer?.device.devnode }

    private func perform(_ action: PassThroughFilter.Action) {
        switch action {
        case .none:
            return
        case .emit(let events):
            do {
                try clone.write(events)
            } catch {
                // uinput refuses a write only when the clone is being destroyed or the
                // kernel is out of memory: that frame is lost on the clone. Logged the first
                // time, then every 1000th.
                if failedWrites % 1000 == 0 {
                    logger.warning(
                        "cannot write to the pass-through clone",
                        metadata: [
                            "device": "\(deviceName)", "clone": "\(clone.devnode)", "error": "\(error)", "failures": "\(failedWrites + 1)",
                        ])
                }
                failedWrites += 1
            }
        }
    }
}

extension PassThroughPolicy {
    /// The policy a device's resolved settings give.
    init(_ settings: ResolvedDeviceSettings) {
        self.init(
            engine: settings.engine, geometry: settings.geometry, wakeSwallow: settings.wakeSwallow, wakeGuard: settings.wakeGuard,
            app: settings.app)
    }
}
