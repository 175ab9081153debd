import GestureCore
import GestureProtocol

/// Keys pressed together and released, as written in an actions file: `KEY_LEFTCTRL+KEY_R`
/// (evdev key names from `linux/input-event-codes.h`).
public struct KeyChord: Sendable, Hashable, CustomStringConvertible {
    /// The keys in the order they are pressed (released in reverse).
    public var codes: [UInt16]
    /// The chord as written.
    public var description: String

    public init(codes: [UInt16], description: String) {
        self.codes = codes
        self.description = description
    }

    /// The key names as written, in order.
    public var names: [String] {
        description.split(separator: "+").map { String($0) }
    }

    /// Why a chord cannot be parsed.
    public enum ParseError: Error, Hashable, CustomStringConvertible {
        case empty
        case unknownKey(String)
        case repeatedKey(String)
        /// A key the `wayland` and `x11` keyboards have no keysym for (`SessionKey.table`).
        case notTypableInSession(String)

        public var description: String {
            switch self {
            case .empty: "is empty (write key names joined by '+', e.g. \"KEY_LEFTCTRL+KEY_R\")"
            case .unknownKey(let name): "names no key: '\(name)' (evdev names such as KEY_A, KEY_ENTER, KEY_LEFTCTRL, KEY_F5)"
            case .repeatedKey(let name): "presses '\(name)' twice"
            case .notTypableInSession(let name):
                "names '\(name)', which the wayland and x11 keyboards do not type (they type letters, digits, F1-F24, "
                    + "editing, navigation, punctuation, keypad, browser and media keys: docs/actions.md); "
                    + "keyboard = \"uinput\" types every evdev key"
            }
        }
    }

    /// Parses `KEY_A+KEY_B`; `keyCode` resolves one evdev key name (libevdev's table in
    /// the runner, so every name the kernel knows works); for the `wayland` and `x11`
    /// keyboards each key must also be in `SessionKey.table`.
    public static func parse(_ text: String, keyCode: (String) -> UInt16?, keyboard: KeyboardBackend) throws(ParseError) -> KeyChord {
        let names = text.split(separator: "+", omittingEmptySubsequences: false).map { String($0) }
        guard !text.isEmpty else { throw .empty }
        var codes: [UInt16] = []
        for name in names {
            guard name.hasPrefix("KEY_") || name.hasPrefix("BTN_"), let code = keyCode(name) else {
                throw .unknownKey(name)
            }
            guard !codes.contains(code) else { throw .repeatedKey(name) }
            switch keyboard {
            case .wayland, .x11: guard SessionKey.named(name) != nil else { throw .notTypableInSession(name) }
            case .uinput: break
            }
            codes.append(code)
        }
        return KeyChord(codes: codes, description: text)
    }

    /// The input events that type the chord: each key down in order, a report, each key up
    /// in reverse order, a report (timestamps are left 0: the kernel stamps uinput events).
    public var events: [InputEvent] {
        var events: [InputEvent] = []
        for code in codes {
            events.append(InputEvent(time: .zero, type: EV.key, code: code, value: 1))
        }
        events.append(InputEvent(time: .zero, type: EV.syn, code: SYN.report, value: 0))
        for code in codes.reversed() {
            events.append(InputEvent(time: .zero, type: EV.key, code: code, value: 0))
        }
        events.append(InputEvent(time: .zero, type: EV.syn, code: SYN.report, value: 0))
        return events
    }
}
