import Actions
import ConfigFile
import EvdevInput
import Foundation
import GestureCore
import GestureProtocol
import Testing

/// Parses with libevdev's key names, as `gesturectl actions` does.
func parseActions(_ text: String) throws(ConfigError) -> ActionsFile {
    try ActionsFileLoader.parse(text: text, path: "actions.toml", keyCode: KeyNames.code)
}

@Suite struct ActionsFileTests {
    @Test func theIssuesExampleParsesIntoEveryField() throws {
        let file = try parseActions(
            """
            [[action]]
            gesture = "swipe"
            phase = "ended"
            region = "exit-edge"
            device = "ELAN*"
            fingers = 3
            direction = "down"
            edge = "top"
            run = ["systemctl", "--user", "restart", "kiosk-browser"]
            timeout = 10
            overlap = "queue"

            [[action]]
            gesture = "tap"
            count = 2
            keys = ["KEY_LEFTCTRL+KEY_R", "KEY_F5"]
            """)
        #expect(
            file.actions == [
                Action(
                    line: 1, trigger: .gesture(.swipe), phase: .ended,
                    filters: Action.Filters(region: "exit-edge", device: "ELAN*", fingers: 3, direction: .down, edge: .top),
                    effect: .run(["systemctl", "--user", "restart", "kiosk-browser"]), timeout: .seconds(10), overlap: .queue),
                Action(
                    line: 13, trigger: .gesture(.tap), phase: .ended, filters: Action.Filters(count: 2),
                    effect: .keys([
                        KeyChord(codes: [29, 19], description: "KEY_LEFTCTRL+KEY_R"), KeyChord(codes: [63], description: "KEY_F5"),
                    ])),
            ])
        #expect(file.subscribedGestures == [.tap, .swipe])
        #expect(file.typesKeys)
        #expect(file.keyCodes == [19, 29, 63])
    }

    @Test func aDragFromAnEdgeIsAnEdgePanAnActionCanMatch() throws {
        let file = try parseActions("[[action]]\ngesture = \"drag\"\nphase = \"began\"\nedge = \"left\"\nrun = [\"open-drawer\"]\n")
        let action = try #require(file.actions.first)
        #expect(action.trigger == .gesture(.drag) && action.filters.edge == .left)
        let pan = ActionEvent(
            trigger: .gesture(.drag), phase: .began, region: nil, device: "d", location: Point(x: 0.05, y: 0.5), fingers: 1, edge: .left,
            line: "{}")
        var fromTheMiddle = pan
        fromTheMiddle.edge = nil
        #expect(ActionMatcher.action(action, matches: pan))
        #expect(!ActionMatcher.action(action, matches: fromTheMiddle))
    }

    @Test func defaultsFollowTheGesture() throws {
        let file = try parseActions(
            """
            action = [
              { gesture = "long-press", run = ["a"] },
              { gesture = "press", run = ["b"] },
              { gesture = "idle", run = ["c"], timeout = 0 },
              { gesture = "active", run = ["d"], timeout = 0.25 },
            ]
            """)
        #expect(file.actions.map(\.phase) == [.began, .ended, nil, nil])
        #expect(file.actions.map(\.timeout) == [.seconds(60), .seconds(60), nil, .milliseconds(250)])
        #expect(file.actions.map(\.overlap) == [.skip, .skip, .skip, .skip])
        #expect(file.subscribedGestures == [.press, .longPress])
        #expect(!file.typesKeys)
    }

    @Test func anEmptyFileHasNoActions() throws {
        #expect(try parseActions("# nothing yet\n").actions.isEmpty)
    }

    /// Every bad file names its line and the reason.
    @Test(arguments: [
        (
            "[[action]]\ngesture = \"swpie\"\nrun = [\"x\"]\n",
            "actions.toml:2: 'gesture' in [[action]] at line 1 must be one of 'press', 'tap', 'long-press', 'drag', 'swipe', 'pinch', 'rotate', 'idle', 'active', not 'swpie' (did you mean 'swipe'?)"
        ),
        (
            "[[action]]\nrun = [\"x\"]\n",
            "actions.toml:1: [[action]] needs a 'gesture': one of 'press', 'tap', 'long-press', 'drag', 'swipe', 'pinch', 'rotate', 'idle', 'active'"
        ),
        (
            "[[action]]\ngesture = \"tap\"\n",
            "actions.toml:1: [[action]] needs 'run' (a command: [\"program\", \"argument\", …]) or 'keys' ([\"KEY_LEFTCTRL+KEY_R\"])"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nrun = [\"x\"]\nkeys = [\"KEY_A\"]\n",
            "actions.toml:4: 'keys' in [[action]] at line 1 cannot be given with 'run': an action either runs a command or types keys"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nrun = []\n",
            "actions.toml:3: 'run' in [[action]] at line 1 must name a program: [\"program\", \"argument\", …] (run through no shell)"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nrun = \"reboot\"\n",
            "actions.toml:3: 'run' in [[action]] at line 1 must be an array, not a string"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nrun = [\"x\", 1]\n",
            "actions.toml:3: 'run' in [[action]] at line 1 must be an array of strings, but holds an integer"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nrun = [\"x\\u0000y\"]\n",
            "actions.toml:3: 'run' in [[action]] at line 1 must not contain a NUL character (\\u0000)"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nphase = \"began\"\nrun = [\"x\"]\n",
            "actions.toml:3: 'phase' in [[action]] at line 1 must be 'ended' for 'tap', not 'began'"
        ),
        (
            "[[action]]\ngesture = \"drag\"\nphase = \"endd\"\nrun = [\"x\"]\n",
            "actions.toml:3: 'phase' in [[action]] at line 1 must be one of 'began', 'changed', 'ended', 'cancelled' for 'drag', not 'endd' (did you mean 'ended'?)"
        ),
        (
            "[[action]]\ngesture = \"idle\"\nphase = \"ended\"\nrun = [\"x\"]\n",
            "actions.toml:3: 'phase' in [[action]] at line 1 does not apply to 'idle' (it has no phases)"
        ),
        (
            "[[action]]\ngesture = \"active\"\nregion = \"a\"\nrun = [\"x\"]\n",
            "actions.toml:3: 'region' in [[action]] at line 1 does not apply to 'active' (activity changes have no region)"
        ),
        (
            "[[action]]\ngesture = \"swipe\"\ncount = 2\nrun = [\"x\"]\n",
            "actions.toml:3: 'count' in [[action]] at line 1 applies only to 'tap' (the tap count)"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nedge = \"top\"\nrun = [\"x\"]\n",
            "actions.toml:3: 'edge' in [[action]] at line 1 applies only to 'swipe' and 'drag' (the screen edge they started from)"
        ),
        (
            "[[action]]\ngesture = \"swipe\"\ndirection = \"north\"\nrun = [\"x\"]\n",
            "actions.toml:3: 'direction' in [[action]] at line 1 must be one of 'left', 'right', 'up', 'down', not 'north'"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nfingers = 0\nrun = [\"x\"]\n",
            "actions.toml:3: 'fingers' in [[action]] at line 1 must be between 1 and 10 (got 0)"
        ),
        (
            "[[action]]\ngesture = \"tap\"\ndevice = \"\"\nrun = [\"x\"]\n",
            "actions.toml:3: 'device' in [[action]] at line 1 must not be empty"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nrun = [\"x\"]\ntimeout = -1\n",
            "actions.toml:4: 'timeout' in [[action]] at line 1 must be between 0 and 86400 (got -1)"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nrun = [\"x\"]\noverlap = \"paralel\"\n",
            "actions.toml:4: 'overlap' in [[action]] at line 1 must be one of 'skip', 'queue', 'parallel', not 'paralel' (did you mean 'parallel'?)"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nkeys = [\"KEY_A\"]\ntimeout = 3\n",
            "actions.toml:4: 'timeout' in [[action]] at line 1 applies only to 'run' (typing keys takes no time)"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nkeys = [\"KEY_LEFTCTRL+KEY_RR\"]\n",
            "actions.toml:3: 'keys' in [[action]] at line 1 'KEY_LEFTCTRL+KEY_RR' names no key: 'KEY_RR' (evdev names such as KEY_A, KEY_ENTER, KEY_LEFTCTRL, KEY_F5)"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nkeys = [\"KEY_LEFTCTRL+KEY_PROG1\"]\n",
            "actions.toml:3: 'keys' in [[action]] at line 1 'KEY_LEFTCTRL+KEY_PROG1' names 'KEY_PROG1', which the wayland and x11 keyboards do not type"
        ),
        (
            "keyboard = \"x12\"\n[[action]]\ngesture = \"tap\"\nkeys = [\"KEY_A\"]\n",
            "actions.toml:1: 'keyboard' in the top level must be one of 'wayland', 'x11', 'uinput', not 'x12' (did you mean 'x11'?)"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nkeys = [\"KEY_A+KEY_A\"]\n",
            "actions.toml:3: 'keys' in [[action]] at line 1 'KEY_A+KEY_A' presses 'KEY_A' twice"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nkeys = [\"\"]\n",
            "actions.toml:3: 'keys' in [[action]] at line 1 '' is empty (write key names joined by '+', e.g. \"KEY_LEFTCTRL+KEY_R\")"
        ),
        (
            "[[action]]\ngesture = \"tap\"\nkeys = []\n",
            "actions.toml:3: 'keys' in [[action]] at line 1 must list at least one chord, e.g. [\"KEY_LEFTCTRL+KEY_R\"]"
        ),
        ("[[action]]\ngesture = \"tap\"\nrun = [\"x\"]\ncomand = 1\n", "actions.toml:4: unknown key 'comand' in [[action]] at line 1"),
        (
            "[[actions]]\ngesture = \"tap\"\n",
            "actions.toml:1: unknown key 'actions' at the top level (did you mean 'action'?); an actions file holds 'keyboard' and [[action]] entries"
        ),
        ("[[action]]\ngesture = \"tap\"\nrun = [\"x\"\n", "actions.toml:3: "),
    ])
    func badFilesNameTheirLine(text: String, expected: String) {
        #expect(throws: ConfigError.self) { try parseActions(text) }
        do {
            _ = try parseActions(text)
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error.description)")
        }
    }

    @Test func moreThanTheLimitOfActionsIsRefusedAtTheFirstOneTooMany() {
        let text = String(repeating: "[[action]]\ngesture = \"tap\"\nrun = [\"x\"]\n", count: ActionsFileLoader.maximumActions + 1)
        #expect(
            throws: ConfigError(
                path: "actions.toml", line: 3 * ActionsFileLoader.maximumActions + 1,
                message: "more than 256 [[action]] entries (this is number 257)")
        ) {
            try parseActions(text)
        }
    }

    @Test func aMissingFileSaysSo() {
        #expect(throws: ConfigError(path: "/nonexistent/actions.toml", line: nil, message: "no such file")) {
            try ActionsFileLoader.load(path: "/nonexistent/actions.toml", keyCode: KeyNames.code)
        }
    }
}
