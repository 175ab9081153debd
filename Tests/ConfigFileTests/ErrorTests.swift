import Testing

@testable import ConfigFile

/// A configuration text and the exact error it must give.
struct BadConfig: CustomTestStringConvertible, Sendable {
    let text: String
    let line: Int?
    let message: String
    var testDescription: String { message }
}

private func bad(_ text: String, line: Int?, _ message: String) -> BadConfig {
    BadConfig(text: text, line: line, message: message)
}

@Suite struct ErrorTests {
    static let cases: [BadConfig] = [
        // Unknown keys and tables.
        bad(
            "[gestures]\n\n[gestures.tap]\nslop = 3\nmulti-tap-interval = 300\n\n\n\n\n\n\nslpo = 3\n", line: 12,
            "unknown key 'slpo' in [gestures.tap] (did you mean 'slop'?)"),
        bad("[daemon]\nsocket-mod = \"0660\"\n", line: 2, "unknown key 'socket-mod' in [daemon] (did you mean 'socket-mode'?)"),
        bad(
            "[deamon]\n", line: 1,
            "unknown key 'deamon' at the top level (did you mean 'daemon'?); tables are 'daemon', 'gestures', 'touch', 'geometry', 'region', 'device'"
        ),
        bad("[gestures]\ntaps = { slop = 1 }\n", line: 2, "unknown key 'taps' in [gestures] (did you mean 'tap'?)"),
        bad("[gestures.tap]\nwobble = 1\n", line: 2, "unknown key 'wobble' in [gestures.tap]"),
        bad(
            "[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\n[region.swipe]\nedge = 3\n", line: 5,
            "unknown key 'edge' in [region.swipe] (did you mean 'edge-margin'?)"),
        bad(
            "[[device]]\nmatch-name = \"*\"\n[device.gestures.drag]\nmin-distance = 1\n", line: 4,
            "unknown key 'min-distance' in [device.gestures.drag] (did you mean 'minimum-distance'?)"),
        // Wrong types.
        bad("[gestures.tap]\nslop = \"3mm\"\n", line: 2, "'slop' in [gestures.tap] must be a number, not a string"),
        bad("[gestures.tap]\nexclusive = 1\n", line: 2, "'exclusive' in [gestures.tap] must be true or false, not an integer"),
        bad("[gestures.tap]\nmax-count = 2.5\n", line: 2, "'max-count' in [gestures.tap] must be an integer, not a float"),
        bad("gestures = 3\n", line: 1, "'gestures' must be a table ([gestures]), not an integer"),
        bad("[region]\nname = \"a\"\n", line: 1, "'region' must be an array of tables ([[region]]), not a table"),
        bad("[gestures]\ntap = 3\n", line: 2, "'tap' in [gestures] must be a table, not an integer"),
        // Out of range.
        bad(
            "[gestures.long-press]\nminimum-duration = -5\n", line: 2,
            "'minimum-duration' in [gestures.long-press] must be greater than 0 and at most 60000 ms (got -5)"),
        bad(
            "[gestures.tap]\nmulti-tap-interval = -1\n", line: 2,
            "'multi-tap-interval' in [gestures.tap] must not be negative and at most 60000 ms (got -1)"),
        bad("[gestures.tap]\nslop = inf\n", line: 2, "'slop' in [gestures.tap] must be a finite number"),
        bad(
            "[gestures.drag]\ndeceleration-rate = 1\n", line: 2,
            "'deceleration-rate' in [gestures.drag] must be between 0 and 1 (exclusive) (got 1)"),
        bad("[gestures.tap]\nmax-count = 0\n", line: 2, "'max-count' in [gestures.tap] must be between 1 and 20 (got 0)"),
        bad(
            "[gestures.rotate]\nminimum-angle = 270\n", line: 2, "'minimum-angle' in [gestures.rotate] must be between 0 and 180 (got 270)"),
        bad("[daemon]\nmax-clients = 0\n", line: 2, "'max-clients' in [daemon] must be between 1 and 65536 (got 0)"),
        // Gesture names.
        bad(
            "[gestures]\nenabled = [\n  \"tap\",\n  \"swpie\",\n]\n", line: 4,
            "unknown gesture 'swpie' in 'enabled' (did you mean 'swipe'?); gestures are 'press', 'tap', 'long-press', 'drag', 'swipe', 'pinch', 'rotate'"
        ),
        bad("[gestures]\nenabled = [\"tap\", \"tap\"]\n", line: 2, "'enabled' in [gestures] lists 'tap' twice"),
        bad("[gestures]\nenabled = \"tap\"\n", line: 2, "'enabled' in [gestures] must be an array, not a string"),
        // Regions.
        bad(
            "[[region]]\nname = \"a\"\nrect = [0.5, 0, 0.6, 1]\n", line: 3,
            "'rect' in [[region]] 'a' must end inside the screen: x + width = 1.1 exceeds 1 (rect is [x, y, width, height], normalised to 0…1)"
        ),
        bad(
            "[[region]]\nname = \"a\"\nrect = [-0.1, 0, 0.5, 1]\n", line: 3,
            "'rect' in [[region]] 'a' must start inside the screen (x and y ≥ 0) (rect is [x, y, width, height], normalised to 0…1)"),
        bad(
            "[[region]]\nname = \"a\"\nrect = [0, 0, 0, 1]\n", line: 3,
            "'rect' in [[region]] 'a' must have a width and height greater than 0 (rect is [x, y, width, height], normalised to 0…1)"),
        bad(
            "[[region]]\nname = \"a\"\nrect = [0, 0, 1]\n", line: 3,
            "'rect' in [[region]] 'a' must be 4 numbers [x, y, width, height], got 3"),
        bad(
            "[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\n\n[[region]]\nname = \"b\"\nrect = [0, 0, 1, 1]\n[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\n",
            line: 9,
            "duplicate region name 'a' (first defined on line 2)"),
        bad("[[region]]\nrect = [0, 0, 1, 1]\n", line: 1, "[[region]] needs a 'name'"),
        bad("[[region]]\nname = \"a\"\n", line: 1, "[[region]] 'a' needs a 'rect' = [x, y, width, height]"),
        bad("[[region]]\nname = \"\"\nrect = [0, 0, 1, 1]\n", line: 2, "'name' in [[region]] must not be empty"),
        // Composition keys of regions.
        bad(
            "[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\nfallthrough = false\n", line: 4,
            "unknown key 'fallthrough' in [[region]] 'a' (did you mean 'fall-through'?)"),
        bad(
            "[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\nfall-through = \"no\"\n", line: 4,
            "'fall-through' in [[region]] 'a' must be true or false, not a string"),
        bad(
            "[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\nsimultaneous = [\"tapp\"]\n", line: 4,
            "unknown gesture 'tapp' in 'simultaneous' (did you mean 'tap'?); gestures are 'press', 'tap', 'long-press', 'drag', 'swipe', 'pinch', 'rotate'"
        ),
        bad(
            "[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\nhigh-priority = \"swipe\"\n", line: 4,
            "'high-priority' in [[region]] 'a' must be an array, not a string"),
        bad(
            "[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\nenabled = [\"tap\"]\nhigh-priority = [\"swipe\"]\n", line: 5,
            "'high-priority' in [[region]] 'a' lists 'swipe', which the region does not enable (add it to 'enabled')"),
        bad(
            "[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\nsimultaneous = [\"tap\", \"drag\"]\nhigh-priority = [\"drag\"]\n", line: 5,
            "'high-priority' in [[region]] 'a' lists 'drag', which 'simultaneous' lists too: a gesture either runs beside the regions inside or wins over them"
        ),
        bad("[gestures]\nsimultaneous = [\"tap\"]\n", line: 2, "unknown key 'simultaneous' in [gestures]"),
        // Geometry.
        bad("[geometry]\nrotation = 45\n", line: 2, "'rotation' in [geometry] must be 0, 90, 180 or 270 (degrees clockwise), not 45"),
        bad("[geometry]\nrotation = 90.0\n", line: 2, "'rotation' in [geometry] must be an integer, not a float"),
        bad(
            "[geometry]\ncalibration = [1, 0, 0,\n  0, 1]\n", line: 2,
            "'calibration' in [geometry] must be 6 numbers [a, b, c, d, e, f], got 5"),
        bad("[geometry]\ncalibration = [1, 0, 0, 0, 1, \"0\"]\n", line: 2, "'calibration' in [geometry] must be a number, not a string"),
        bad(
            "[geometry]\nphysical-size = [300, 0]\n", line: 2,
            "'physical-size' in [geometry] must be a width and a height in mm, each from 1 to 10000"),
        bad(
            "[[device]]\nmatch-name = \"x\"\nphysical-size = [300]\n", line: 3,
            "'physical-size' in [[device]] must be [width, height] in mm (or [] to use the device's resolution), got 1 numbers"),
        // Daemon.
        bad(
            "[daemon]\nsocket-mode = \"0669\"\n", line: 2,
            "'socket-mode' in [daemon] must be a permission mode between \"0000\" and \"0777\" (an octal string like \"0660\", or 0o660), not '0669'"
        ),
        bad(
            "[daemon]\nsocket-mode = 660\n", line: 2,
            "'socket-mode' in [daemon] must be a permission mode between \"0000\" and \"0777\" (an octal string like \"0660\", or 0o660), not 660 (decimal)"
        ),
        bad("[daemon]\nsocket-mode = 0660\n", line: 2, "leading zeros are not allowed in '0660' (write octal as 0o660)"),
        bad(
            "[daemon]\nslow-client = \"disconect\"\n", line: 2,
            "'slow-client' in [daemon] must be one of 'drop-oldest', 'disconnect', not 'disconect' (did you mean 'disconnect'?)"),
        bad("[daemon]\nslow-client = disconnect\n", line: 2, "invalid value 'disconnect' (strings must be quoted: \"disconnect\")"),
        bad(
            "[daemon]\nlog-level = \"verbose\"\n", line: 2,
            "'log-level' in [daemon] must be one of 'trace', 'debug', 'info', 'notice', 'warning', 'error', 'critical', not 'verbose'"),
        bad("[daemon]\nsocket = \"gestured.sock\"\n", line: 2, "'socket' in [daemon] must be an absolute path, not 'gestured.sock'"),
        bad(
            "[daemon]\nallowed-users = [1000, \"kiosk\"]\n", line: 2,
            "'allowed-users' in [daemon] takes numeric uids; names like 'kiosk' are not resolved (find the number with `getent`)"),
        bad("[daemon]\nallowed-groups = [-1]\n", line: 2, "'allowed-groups' in [daemon] takes numeric gids from 0 to 4294967294"),
        // Devices.
        bad(
            "[[device]]\ngrab = true\n", line: 1,
            "[[device]] needs at least one of 'match-name', 'match-id', 'match-path' (match-name = \"*\" matches every device)"),
        bad(
            "[[device]]\nmatch-id = \"04f3-010c\"\n", line: 2,
            "'match-id' in [[device]] must be vendor:product in hex, like \"04f3:010c\", not '04f3-010c'"),
        bad(
            "[[device]]\nmatch-path = \"by-id/x\"\n", line: 2,
            "'match-path' in [[device]] must be an absolute path such as /dev/input/by-id/…, not 'by-id/x'"),
        bad(
            "[[device]]\nmatch-name = \"*\"\n[[device.region]]\nname = \"a\"\nrect = [0, 0, 2, 1]\n", line: 5,
            "'rect' in [[device.region]] 'a' must end inside the screen: x + width = 2 exceeds 1 (rect is [x, y, width, height], normalised to 0…1)"
        ),
        // TOML syntax.
        bad("[gestures.tap]\nslop = 3\nslop = 4\n", line: 3, "key 'slop' is already defined (line 2)"),
        bad("[gestures]\n[gestures]\n", line: 2, "table [gestures] is already defined (line 1)"),
        bad("[gestures.tap\n", line: 1, "expected ']' to close the table header, found the end of the line"),
        bad("[daemon]\nsocket = \"/run/x\n", line: 2, "unterminated string (a basic string ends on its line with '\"')"),
        bad("[daemon]\nsocket = \"/run/\\q\"\n", line: 2, "invalid escape '\\q' in string"),
        bad("[gestures]\nenabled = [\"tap\",\n\n", line: 2, "unterminated array: no ']' before the end of the file"),
        bad("[daemon]\nsocket = \"\"\"\n/run\n", line: 2, "unterminated multi-line string: no closing quotes before the end of the file"),
        bad("[gestures]\nenabled = [\"tap\" \"drag\"]\n", line: 2, "expected ',' or ']' in the array, found '\"'"),
        bad("[gestures.tap]\nslop = 3 mm\n", line: 2, "expected the end of the line after a value, found 'm'"),
        bad("[gestures.tap]\nslop =\n", line: 2, "expected a value, found the end of the line"),
        bad("[gestures.tap]\nslop 3\n", line: 2, "expected '=' after key 'slop', found '3'"),
        bad("[gestures]\ntap = { slop = 1, }\n", line: 2, "a trailing comma is not allowed in an inline table"),
        bad("[gestures]\ntap = { slop = 1\n", line: 2, "an inline table must end with '}' on the same line"),
        bad("[gestures]\ntap = { slop = 1 }\n[gestures.tap]\n", line: 3, "table [gestures.tap] is already defined (line 2)"),
        bad("[gestures]\ntap.slop = 1\n[gestures.tap]\n", line: 3, "table [gestures.tap] is already defined (line 2)"),
        bad("[geometry]\nrotation = 1979-05-27\n", line: 2, "dates and times are not supported in gestured's configuration ('1979-05-27')"),
        bad("[gestures.tap]\nslop = 1__0\n", line: 2, "invalid number '1__0'"),
        bad("[daemon]\nmax-clients = 99999999999999999999\n", line: 2, "integer '99999999999999999999' does not fit in 64 bits"),
        bad("[daemon]\r\nsocket = \"a\"\r\nmax-clients = 0\r\n", line: 2, "'socket' in [daemon] must be an absolute path, not 'a'"),
        bad("[daemon]\rsocket = \"/a\"\n", line: 1, "carriage return without a line feed"),
        bad("[gestures]\n\"\"\"x\"\"\" = 1\n", line: 2, "expected '=' after key '', found '\"'"),
    ]

    @Test(arguments: cases)
    func badConfigurationNamesLineAndProblem(_ config: BadConfig) {
        #expect(throws: ConfigError(path: "gestured.toml", line: config.line, message: config.message)) {
            _ = try ConfigLoader.parse(text: config.text, path: "gestured.toml")
        }
    }

    @Test func descriptionIsFileLineMessage() {
        let error = ConfigError(path: "gestured.toml", line: 12, message: "unknown key 'slpo' in [gestures.tap] (did you mean 'slop'?)")
        #expect(error.description == "gestured.toml:12: unknown key 'slpo' in [gestures.tap] (did you mean 'slop'?)")
        #expect(ConfigError(path: "/x.toml", line: nil, message: "no such file").description == "/x.toml: no such file")
    }

    @Test func missingFileAndDirectoryAreErrorsWithoutLine() {
        #expect(throws: ConfigError(path: "/nonexistent/gestured.toml", line: nil, message: "no such file")) {
            _ = try ConfigLoader.load(path: "/nonexistent/gestured.toml")
        }
        #expect(throws: ConfigError(path: "/", line: nil, message: "is a directory, not a file")) {
            _ = try ConfigLoader.load(path: "/")
        }
    }

    @Test func invalidUTF8IsReportedOnItsLine() {
        let bytes = Array("[daemon]\n# ok\n# caf".utf8) + [0xC3, 0x28] + Array("\n".utf8)
        #expect(ConfigLoader.firstInvalidUTF8Line(bytes) == 3)
        #expect(ConfigLoader.firstInvalidUTF8Line(Array("a\nb\né".utf8)) == nil)
    }
}
