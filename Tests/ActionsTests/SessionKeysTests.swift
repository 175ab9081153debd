import Actions
import ConfigFile
import EvdevInput
import Foundation
import Testing

/// The `wayland` and `x11` keyboards: evdev key names to modifiers and keysyms, the argv
/// of wtype and xdotool that types a chord, and where wtype finds the session's display.
@Suite struct SessionKeysTests {
    static func chords(_ texts: [String]) throws -> [KeyChord] {
        try texts.map { text in try KeyChord.parse(text, keyCode: KeyNames.code, keyboard: .wayland) }
    }

    @Test func aChordHoldsItsModifiersAroundItsKeyPressedInOrderAndReleasedInReverse() throws {
        #expect(
            SessionTypist.arguments(typing: try Self.chords(["KEY_LEFTCTRL+KEY_LEFTSHIFT+KEY_R"]), on: .wayland)
                == ["wtype", "-M", "ctrl", "-M", "shift", "-P", "r", "-p", "r", "-m", "shift", "-m", "ctrl"])
    }

    @Test func chordsAreTypedOneAfterTheOtherInOneRun() throws {
        #expect(
            SessionTypist.arguments(typing: try Self.chords(["KEY_F5", "KEY_RIGHTALT+KEY_E", "KEY_LEFTMETA+KEY_PAGEDOWN"]), on: .wayland)
                == [
                    "wtype", "-P", "F5", "-p", "F5", "-M", "altgr", "-P", "e", "-p", "e", "-m", "altgr", "-M", "logo", "-P", "Next",
                    "-p", "Next", "-m", "logo",
                ])
    }

    @Test func aModifierAfterAKeyIsPressedAfterItAsWritten() throws {
        #expect(
            SessionTypist.arguments(typing: try Self.chords(["KEY_A+KEY_RIGHTSHIFT"]), on: .wayland)
                == ["wtype", "-P", "a", "-M", "shift", "-m", "shift", "-p", "a"])
    }

    @Test func onX11EveryKeyGoesDownInOrderAndUpInReverseByItsX11Keysym() throws {
        #expect(
            SessionTypist.arguments(typing: try Self.chords(["KEY_RIGHTCTRL+KEY_R", "KEY_RIGHTALT+KEY_LEFTMETA+KEY_BACK"]), on: .x11)
                == [
                    "xdotool", "keydown", "Control_L", "keydown", "r", "keyup", "r", "keyup", "Control_L", "keydown", "ISO_Level3_Shift",
                    "keydown", "Super_L", "keydown", "XF86Back", "keyup", "XF86Back", "keyup", "Super_L", "keyup", "ISO_Level3_Shift",
                ])
        #expect(SessionTypist.arguments(typing: try Self.chords(["KEY_F5"]), on: .uinput) == nil)
    }

    /// Only the Wayland keyboard needs one held: `wtype -` holds a virtual keyboard while its
    /// standard input is open; an X server always has a keyboard, and uinput's is the runner's.
    @Test func onlyTheWaylandKeyboardIsHeldByAProcess() {
        #expect(SessionTypist.keyboardHolder(for: .wayland) == ["wtype", "-"])
        #expect(SessionTypist.keyboardHolder(for: .x11) == nil)
        #expect(SessionTypist.keyboardHolder(for: .uinput) == nil)
    }

    @Test(arguments: [
        ("KEY_ENTER", "Return"), ("KEY_ESC", "Escape"), ("KEY_SPACE", "space"), ("KEY_BACKSPACE", "BackSpace"),
        ("KEY_PAGEUP", "Prior"), ("KEY_DOT", "period"), ("KEY_7", "7"), ("KEY_F24", "F24"), ("KEY_BACK", "XF86Back"),
        ("KEY_REFRESH", "XF86Reload"), ("KEY_HOMEPAGE", "XF86HomePage"), ("KEY_VOLUMEUP", "XF86AudioRaiseVolume"),
    ])
    func keysMapToTheirXKBKeysyms(evdev: String, keysym: String) {
        #expect(SessionKey.named(evdev) == .keysym(keysym))
    }

    @Test(arguments: [
        ("KEY_LEFTCTRL", "ctrl"), ("KEY_RIGHTCTRL", "ctrl"), ("KEY_LEFTSHIFT", "shift"), ("KEY_RIGHTSHIFT", "shift"),
        ("KEY_LEFTALT", "alt"), ("KEY_RIGHTALT", "altgr"), ("KEY_LEFTMETA", "logo"), ("KEY_RIGHTMETA", "logo"),
    ])
    func modifiersMapToWtypesModifierNames(evdev: String, modifier: String) throws {
        guard case .modifier(let found) = SessionKey.named(evdev) else {
            Issue.record("\(evdev) is no modifier: \(String(describing: SessionKey.named(evdev)))")
            return
        }
        #expect(found.wtypeName == modifier)
    }

    /// Every name of the table is a key the kernel knows (libevdev), so the loader's first
    /// check (an evdev name) never refuses what the table offers.
    @Test func everyNameOfTheTableIsAnEvdevKey() {
        let unknown = SessionKey.table.keys.filter { KeyNames.code($0) == nil }.sorted()
        #expect(unknown.isEmpty, "not evdev key names: \(unknown)")
        #expect(SessionKey.table.count > 130)
    }

    /// Every keysym and modifier of the table (and the X11 modifiers' keysyms) is one wtype
    /// itself accepts: wtype parses all its arguments (with xkbcommon's keysym names, the X11
    /// names too) before it connects, so with no display it fails at the connection, not at
    /// a name ("Unknown key", "Invalid modifier").
    @Test func wtypeAcceptsEveryKeysymAndModifierOfTheTable() throws {
        var arguments: [String] = []
        for key in SessionKey.table.values {
            switch key {
            case .modifier(let modifier): arguments += ["-M", modifier.wtypeName, "-k", modifier.x11Keysym]
            case .keysym(let name): arguments += ["-k", name]
            }
        }
        let wtype = Process()
        wtype.executableURL = URL(fileURLWithPath: "/usr/bin/wtype")
        wtype.arguments = arguments
        wtype.environment = ["XDG_RUNTIME_DIR": "/nonexistent", "WAYLAND_DISPLAY": "wayland-absent"]
        let errors = Pipe()
        wtype.standardError = errors
        try wtype.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        wtype.waitUntilExit()
        #expect(wtype.terminationStatus != 0)
        #expect(text.contains("Wayland connection failed"), "wtype said: \(text)")
    }

    @Test func aFileTypesThroughWaylandUnlessItAsksForAnotherKeyboard() throws {
        let keys = "[[action]]\ngesture = \"tap\"\nkeys = [\"KEY_LEFTCTRL+KEY_PROG1\"]\n"
        #expect(try parseActions("[[action]]\ngesture = \"tap\"\nkeys = [\"KEY_F5\"]\n").keyboard == .wayland)
        #expect(try parseActions("keyboard = \"x11\"\n[[action]]\ngesture = \"tap\"\nkeys = [\"KEY_F5\"]\n").keyboard == .x11)
        #expect(throws: ConfigError.self) { try parseActions("keyboard = \"x11\"\n" + keys) }
        let uinput = try parseActions("keyboard = \"uinput\"\n" + keys)
        #expect(uinput.keyboard == .uinput)
        #expect(uinput.keyCodes == [29, 148])
        #expect(throws: ConfigError.self) { try parseActions(keys) }
    }

    @Test func aKeysActionBecomesAQueuedWtypeRunAndARunActionStaysAsItIs() throws {
        let file = try parseActions(
            "[[action]]\ngesture = \"tap\"\nkeys = [\"KEY_LEFTCTRL+KEY_R\"]\n[[action]]\ngesture = \"swipe\"\nrun = [\"x\"]\n")
        let typed = SessionTypist.runnable(file.actions[0], on: .wayland)
        #expect(typed.effect == .run(["wtype", "-M", "ctrl", "-P", "r", "-p", "r", "-m", "ctrl"]))
        #expect(typed.overlap == .queue && typed.timeout == SessionTypist.timeout)
        #expect(typed.trigger == file.actions[0].trigger && typed.line == 1)
        #expect(SessionTypist.runnable(file.actions[1], on: .wayland) == file.actions[1])
        #expect(SessionTypist.runnable(file.actions[0], on: .uinput) == file.actions[0])
    }

    @Test func theSocketIsWaylandDisplayInTheRuntimeDirectoryOrAnAbsolutePath() throws {
        let present: Set = ["/run/user/1000/wayland-1", "/run/user/1000/wayland-0", "/tmp/w.sock"]
        let exists = { (path: String) in present.contains(path) }
        #expect(
            try WaylandSession.socket(waylandDisplay: "wayland-1", runtimeDirectory: "/run/user/1000", exists: exists).get()
                == "/run/user/1000/wayland-1")
        #expect(
            try WaylandSession.socket(waylandDisplay: nil, runtimeDirectory: "/run/user/1000", exists: exists).get()
                == "/run/user/1000/wayland-0")
        #expect(try WaylandSession.socket(waylandDisplay: "/tmp/w.sock", runtimeDirectory: nil, exists: exists).get() == "/tmp/w.sock")
    }

    @Test(
        arguments: [
            ("wayland-1", nil, "XDG_RUNTIME_DIR is not set (WAYLAND_DISPLAY: wayland-1)"),
            (
                "wayland-2", "/run/user/1000",
                "no Wayland socket at /run/user/1000/wayland-2 (WAYLAND_DISPLAY=wayland-2, XDG_RUNTIME_DIR=/run/user/1000)"
            ),
            (nil, "/run/user/0", "WAYLAND_DISPLAY is not set and there is no /run/user/0/wayland-0 (XDG_RUNTIME_DIR=/run/user/0)"),
        ] as [(String?, String?, String)])
    func withoutASocketTheProblemNamesTheVariables(display: String?, runtime: String?, expected: String) {
        let result = WaylandSession.socket(waylandDisplay: display, runtimeDirectory: runtime, exists: { $0 == "/run/user/1000/wayland-1" })
        switch result {
        case .success(let path): Issue.record("found \(path)")
        case .failure(let problem): #expect(problem.description == expected)
        }
    }
}
