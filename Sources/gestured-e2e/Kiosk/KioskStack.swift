/// One compositor showing one client, run as a unit of the kiosk tier.
struct KioskStack: Equatable {
    /// The client a compositor shows.
    enum Client: String, CaseIterable {
        /// wev: a Wayland client that prints every `wl_touch` event (the protocol level).
        case wev
        /// Chromium in kiosk mode with the guide's recipe for the compositor (the DOM level).
        case chromium
    }

    /// Where the compositor draws.
    enum Output: Equatable {
        /// wlroots' headless backend: a 1280×720 output in memory.
        case headless
        /// The guest's virtio GPU through DRM (`vm/run.sh --gpu`): an output whose power a
        /// blanker switches (DPMS) and the kernel shows in sysfs, where gestured reads it.
        case drm

        /// The compositor's environment for it, over the headless defaults.
        var environment: [String] {
            switch self {
            case .headless: []
            case .drm: ["WLR_BACKENDS=drm,libinput"]
            }
        }
    }

    let compositor: CompositorKind
    let client: Client
    var output = Output.headless
    /// Whether a USB mouse is plugged into the seat too (a uinput mouse): labwc offers apps a
    /// pointer only while a pointer device is present.
    var mouse = false

    /// Whether only the stack's start and its wake cases run (`ChromiumRun`): the wake under
    /// a compositor whose whole stacks the default tier leaves out (cage 0.2.0).
    var wakeOnly = false

    /// `cage+wev`, `sway+chromium`, `raspios+chromium+mouse`: the cases' prefix (`kiosk
    /// [sway+chromium]: …`); a wake-only stack's cases are named as its whole stack's.
    var name: String { "\(compositor.rawValue)+\(client.rawValue)\(mouse ? "+mouse" : "")" }

    /// What the driver's `--kiosk` (vm/test-kiosk.sh's `--compositors`) names to run this
    /// stack: its compositor (`cage2`), or for a wake-only stack `COMPOSITOR-wake`.
    var selector: String { wakeOnly ? "\(compositor.rawValue)-wake" : compositor.rawValue }

    /// Whether `selectors` ask for this stack; a wake-only one not beside its compositor,
    /// whose whole stacks have its wake cases.
    func isSelected(by selectors: [String]) -> Bool {
        selectors.contains(selector) && !(wakeOnly && selectors.contains(compositor.rawValue))
    }
}
