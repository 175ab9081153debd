/// What a key of a chord is to the session's own typing tools (the `wayland` keyboard's
/// wtype, the `x11` keyboard's xdotool): a modifier held around the other keys, or a key
/// named by its keysym.
public enum SessionKey: Sendable, Hashable {
    case modifier(Modifier)
    /// An XKB keysym name, which is also its X11 keysym name (`xkbcommon-keysyms.h`
    /// without `XKB_KEY_`), e.g. `r`, `Return`, `XF86Back`.
    case keysym(String)

    /// The modifiers, by what they do (left and right keys alike but for AltGr).
    public enum Modifier: String, Sendable, Hashable, CaseIterable {
        case ctrl, shift, alt, altgr, logo

        /// wtype's name for it (`-M ctrl`).
        public var wtypeName: String { rawValue }
        /// The X11 keysym xdotool presses for it.
        public var x11Keysym: String {
            switch self {
            case .ctrl: "Control_L"
            case .shift: "Shift_L"
            case .alt: "Alt_L"
            case .altgr: "ISO_Level3_Shift"
            case .logo: "Super_L"
            }
        }
    }

    /// The key an evdev key name stands for, or nil when the table has no entry for it.
    public static func named(_ evdevName: String) -> SessionKey? {
        table[evdevName]
    }

    /// Every evdev key name the `wayland` and `x11` keyboards type, with what it types: the keys a
    /// kiosk binds (letters, digits, F1–F24, editing and navigation keys, punctuation of a
    /// US layout, the keypad, browser and media keys). The keysyms are the ones xkeyboard-config's
    /// evdev keycodes give these keys in a US layout.
    public static let table: [String: SessionKey] = {
        var table: [String: SessionKey] = [
            "KEY_LEFTCTRL": .modifier(.ctrl), "KEY_RIGHTCTRL": .modifier(.ctrl),
            "KEY_LEFTSHIFT": .modifier(.shift), "KEY_RIGHTSHIFT": .modifier(.shift),
            "KEY_LEFTALT": .modifier(.alt), "KEY_RIGHTALT": .modifier(.altgr),
            "KEY_LEFTMETA": .modifier(.logo), "KEY_RIGHTMETA": .modifier(.logo),
        ]
        for letter in "abcdefghijklmnopqrstuvwxyz" {
            table["KEY_\(letter.uppercased())"] = .keysym(String(letter))
        }
        for digit in 0...9 {
            table["KEY_\(digit)"] = .keysym("\(digit)")
            table["KEY_KP\(digit)"] = .keysym("KP_\(digit)")
        }
        for number in 1...24 {
            table["KEY_F\(number)"] = .keysym("F\(number)")
        }
        let keysyms: [String: String] = [
            // Editing and navigation.
            "KEY_ENTER": "Return", "KEY_ESC": "Escape", "KEY_TAB": "Tab", "KEY_SPACE": "space", "KEY_BACKSPACE": "BackSpace",
            "KEY_UP": "Up", "KEY_DOWN": "Down", "KEY_LEFT": "Left", "KEY_RIGHT": "Right", "KEY_HOME": "Home", "KEY_END": "End",
            "KEY_PAGEUP": "Prior", "KEY_PAGEDOWN": "Next", "KEY_INSERT": "Insert", "KEY_DELETE": "Delete",
            "KEY_SYSRQ": "Print", "KEY_PRINT": "Print", "KEY_PAUSE": "Pause", "KEY_COMPOSE": "Menu", "KEY_MENU": "Menu",
            "KEY_CAPSLOCK": "Caps_Lock", "KEY_NUMLOCK": "Num_Lock", "KEY_SCROLLLOCK": "Scroll_Lock",
            // Punctuation (US layout).
            "KEY_MINUS": "minus", "KEY_EQUAL": "equal", "KEY_LEFTBRACE": "bracketleft", "KEY_RIGHTBRACE": "bracketright",
            "KEY_SEMICOLON": "semicolon", "KEY_APOSTROPHE": "apostrophe", "KEY_GRAVE": "grave", "KEY_BACKSLASH": "backslash",
            "KEY_COMMA": "comma", "KEY_DOT": "period", "KEY_SLASH": "slash",
            // Keypad.
            "KEY_KPENTER": "KP_Enter", "KEY_KPPLUS": "KP_Add", "KEY_KPMINUS": "KP_Subtract", "KEY_KPASTERISK": "KP_Multiply",
            "KEY_KPSLASH": "KP_Divide", "KEY_KPDOT": "KP_Decimal", "KEY_KPEQUAL": "KP_Equal",
            // Browser keys.
            "KEY_BACK": "XF86Back", "KEY_FORWARD": "XF86Forward", "KEY_REFRESH": "XF86Reload", "KEY_HOMEPAGE": "XF86HomePage",
            "KEY_SEARCH": "XF86Search", "KEY_BOOKMARKS": "XF86Favorites", "KEY_STOP": "Cancel", "KEY_FIND": "Find",
            "KEY_ZOOMIN": "XF86ZoomIn", "KEY_ZOOMOUT": "XF86ZoomOut", "KEY_ZOOMRESET": "XF86ZoomReset",
            "KEY_CLOSE": "XF86Close", "KEY_NEW": "XF86New", "KEY_OPEN": "XF86Open", "KEY_SAVE": "XF86Save",
            "KEY_COPY": "XF86Copy", "KEY_CUT": "XF86Cut", "KEY_PASTE": "XF86Paste", "KEY_UNDO": "Undo", "KEY_REDO": "Redo",
            "KEY_HELP": "Help",
            // Media, display and power.
            "KEY_MUTE": "XF86AudioMute", "KEY_VOLUMEDOWN": "XF86AudioLowerVolume", "KEY_VOLUMEUP": "XF86AudioRaiseVolume",
            "KEY_PLAYPAUSE": "XF86AudioPlay", "KEY_PLAY": "XF86AudioPlay", "KEY_PAUSECD": "XF86AudioPause",
            "KEY_STOPCD": "XF86AudioStop", "KEY_NEXTSONG": "XF86AudioNext", "KEY_PREVIOUSSONG": "XF86AudioPrev",
            "KEY_BRIGHTNESSDOWN": "XF86MonBrightnessDown", "KEY_BRIGHTNESSUP": "XF86MonBrightnessUp",
            "KEY_SLEEP": "XF86Sleep", "KEY_WAKEUP": "XF86WakeUp", "KEY_POWER": "XF86PowerOff",
            "KEY_MAIL": "XF86Mail", "KEY_CALC": "XF86Calculator", "KEY_WWW": "XF86WWW", "KEY_CONFIG": "XF86Tools",
        ]
        for (name, keysym) in keysyms {
            table[name] = .keysym(keysym)
        }
        return table
    }()
}
