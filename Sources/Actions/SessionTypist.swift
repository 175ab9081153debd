/// The command line that types chords through the session's own means: `wtype` over the
/// Wayland virtual-keyboard protocol (the `wayland` keyboard), or `xdotool` over X11's
/// XTEST (the `x11` keyboard, for X11 clients such as Chromium under cage through
/// Xwayland). docs/actions.md, "Keys".
public enum SessionTypist {
    /// How long one run may take before it is stopped (it connects, types and exits).
    public static let timeout: Duration = .seconds(10)

    /// The process that keeps a keyboard on the session's seat for as long as the runner
    /// runs, started once (`wtype -`: a virtual keyboard that types what it reads on
    /// standard input, given a pipe the runner never writes to, so it holds its keyboard
    /// until the runner exits or dies and the pipe closes); nil for keyboards that need none
    /// (X11 servers always have one; uinput's is the runner's own).
    ///
    /// Why: a seat with no keyboard of its own (a kiosk with none plugged in) offers
    /// `wl_keyboard` only while some virtual keyboard exists. A client binds it only after
    /// it hears of it, so the first keys of a typing run that brings the seat its keyboard
    /// can pass before the client has one: the client then learns of the press only in the
    /// keys of `wl_keyboard.enter`, which clients do not act on, and the chord is lost. With
    /// the seat's keyboard held, clients bind it long before a chord is typed.
    public static func keyboardHolder(for keyboard: KeyboardBackend) -> [String]? {
        switch keyboard {
        case .wayland: ["wtype", "-"]
        case .x11, .uinput: nil
        }
    }

    /// How long the keyboard holder's restarts wait at most (from 100 ms, doubling while it
    /// keeps failing, as on a compositor without the virtual-keyboard protocol).
    public static let holderLongestBackoff: Duration = .seconds(60)
    /// How long the keyboard holder must have run for its exit to count as a loss rather
    /// than a failure to start (the next restart waits 100 ms again).
    public static let holderHeld: Duration = .seconds(10)

    /// The program for `keyboard`, searched in `PATH` (Debian packages of the same names);
    /// nil for `uinput`, which the runner types on itself.
    public static func program(for keyboard: KeyboardBackend) -> String? {
        switch keyboard {
        case .wayland: "wtype"
        case .x11: "xdotool"
        case .uinput: nil
        }
    }

    /// The argv typing `chords` one after the other on `keyboard`: each key pressed in the
    /// chord's order, then released in reverse (wtype: a modifier with `-M`/`-m`, another
    /// key by keysym with `-P`/`-p`; xdotool: `keydown`/`keyup` with X11 keysyms). Nil for
    /// `uinput`, or when a key has no entry in `SessionKey.table` (the loader refuses such
    /// files).
    public static func arguments(typing chords: [KeyChord], on keyboard: KeyboardBackend) -> [String]? {
        guard let program = program(for: keyboard) else { return nil }
        var arguments = [program]
        for chord in chords {
            var keys: [SessionKey] = []
            for name in chord.names {
                guard let key = SessionKey.named(name) else { return nil }
                keys.append(key)
            }
            for key in keys { arguments += words(key, pressed: true, on: keyboard) }
            for key in keys.reversed() { arguments += words(key, pressed: false, on: keyboard) }
        }
        return arguments
    }

    private static func words(_ key: SessionKey, pressed: Bool, on keyboard: KeyboardBackend) -> [String] {
        switch (keyboard, key) {
        case (.wayland, .modifier(let modifier)): [pressed ? "-M" : "-m", modifier.wtypeName]
        case (.wayland, .keysym(let keysym)): [pressed ? "-P" : "-p", keysym]
        case (.x11, .modifier(let modifier)): [pressed ? "keydown" : "keyup", modifier.x11Keysym]
        case (.x11, .keysym(let keysym)): [pressed ? "keydown" : "keyup", keysym]
        case (.uinput, _): []
        }
    }

    /// `action` with its `keys` turned into the `run` of the typing program (queued, so
    /// chords of successive triggers are typed in order and none is lost); any other action,
    /// and every action for `uinput`, as it is.
    public static func runnable(_ action: Action, on keyboard: KeyboardBackend) -> Action {
        guard case .keys(let chords) = action.effect, let argv = arguments(typing: chords, on: keyboard) else { return action }
        var runnable = action
        runnable.effect = .run(argv)
        runnable.timeout = timeout
        runnable.overlap = .queue
        return runnable
    }
}
