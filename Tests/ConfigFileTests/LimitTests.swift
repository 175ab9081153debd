import Foundation
import GestureTestSupport
import Glibc
import Testing

@testable import ConfigFile

/// What no configuration file may do to the process reading it: nest deep
/// enough to overflow the stack, take quadratic time or memory, or make the reader block.
@Suite struct LimitTests {
    private func error(_ text: String) -> ConfigError? {
        do {
            _ = try ConfigLoader.parse(text: text, path: "g.toml")
            return nil
        } catch {
            return error
        }
    }

    /// 20 000 nested arrays overflowed the stack (check-config exited 139; a reload killed
    /// the daemon). Nesting is refused at the first level beyond the limit.
    @Test func deepNestingIsAnErrorNotACrash() {
        let depth = 20_000
        for (open, close) in [("[", "]"), ("{a=", "}")] {
            let text = "a = " + String(repeating: open, count: depth) + String(repeating: close, count: depth) + "\n"
            #expect(error(text) == ConfigError(path: "g.toml", line: 1, message: "arrays and inline tables nest more than 16 deep"))
        }
        let deepest = "[gestures]\nx = " + String(repeating: "[", count: 16) + String(repeating: "]", count: 16) + "\n"
        #expect(error(deepest)?.message == "unknown key 'x' in [gestures]", "16 levels still parse")
    }

    /// A 20 000-part dotted header took 9.4 s and 655 MB (every table stored its whole path).
    @Test(arguments: [
        "[" + Array(repeating: "a", count: 20_000).joined(separator: ".") + "]\n",
        Array(repeating: "a", count: 20_000).joined(separator: ".") + " = 1\n",
    ])
    func longDottedKeysAreAnError(text: String) {
        #expect(error(text) == ConfigError(path: "g.toml", line: 1, message: "a key has more than 16 dotted parts"))
    }

    @Test func regionAndDeviceCountsAreBounded() {
        func regions(_ count: Int) -> String {
            (0..<count).map { "[[region]]\nname = \"r\($0)\"\nrect = [0, 0, 1, 1]\n" }.joined()
        }
        #expect(error(regions(1024)) == nil)
        #expect(
            error(regions(1025))
                == ConfigError(path: "g.toml", line: 1024 * 3 + 1, message: "more than 1024 [[region]] entries (this is number 1025)"))
        let devices = (0..<65).map { _ in "[[device]]\nmatch-name = \"*\"\n" }.joined()
        #expect(
            error(devices) == ConfigError(path: "g.toml", line: 64 * 2 + 1, message: "more than 64 [[device]] entries (this is number 65)"))
    }

    /// Appending to an array of tables no longer copies it: the tables come out in order,
    /// each the one its header opened.
    @Test func manyArrayTablesKeepTheirOrder() throws {
        let text = (0..<1000).map { "[[region]]\nname = \"r\($0)\"\nrect = [0, 0, 1, 1]\n" }.joined()
        let configuration = try ConfigLoader.parse(text: text, path: "g.toml")
        #expect(configuration.engine.regions.map(\.name) == (0..<1000).map { "r\($0)" })
    }

    @Test func aFileLargerThanTheLimitIsRefusedBeforeParsing() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("big.toml")
        // Valid TOML all the way: only the size is wrong.
        let line = "# " + String(repeating: "x", count: 1021) + "\n"
        try String(repeating: line, count: 1025).write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: ConfigError(path: path, line: nil, message: "is larger than the limit of 1 MiB (1049600 bytes or more)")) {
            _ = try ConfigLoader.load(path: path)
        }
    }

    /// A symlink loop was "no such file", a FIFO "permission denied?"; a FIFO must not
    /// block the reader either (nothing writes to this one).
    @Test func symlinkLoopsAndFIFOsAreNamedForWhatTheyAre() throws {
        let directory = TemporaryDirectory()
        let loop = directory.file("loop.toml")
        #expect(symlink(loop, loop) == 0)
        #expect(throws: ConfigError(path: loop, line: nil, message: "too many levels of symbolic links (a symlink loop?)")) {
            _ = try ConfigLoader.load(path: loop)
        }
        let fifo = directory.file("fifo.toml")
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: ConfigError(path: fifo, line: nil, message: "is a FIFO (named pipe), not a file")) {
            _ = try ConfigLoader.load(path: fifo)
        }
        #expect(throws: ConfigError(path: "/dev/zero", line: nil, message: "is a device, not a file")) {
            _ = try ConfigLoader.load(path: "/dev/zero")
        }
    }

    /// Geometry that maps every touch onto one point or overflows: refused.
    @Test(arguments: [
        (
            "calibration = [0, 0, 0, 0, 0, 0]",
            "'calibration' in [geometry] flattens the panel: a·e − b·d = 0 (it must be at least 0.001 in size, or every touch lands on one line)"
        ),
        (
            "calibration = [1, 1, 0, 1, 1, 0]",
            "'calibration' in [geometry] flattens the panel: a·e − b·d = 0 (it must be at least 0.001 in size, or every touch lands on one line)"
        ),
        ("calibration = [1e308, 0, 0, 0, 1e308, 0]", "'calibration' in [geometry] values must be between -10 and 10"),
        ("physical-size = [1e-300, 1e-300]", "'physical-size' in [geometry] must be a width and a height in mm, each from 1 to 10000"),
        ("physical-size = [300, 20000]", "'physical-size' in [geometry] must be a width and a height in mm, each from 1 to 10000"),
    ])
    func degenerateGeometryIsRefused(line: String, message: String) {
        #expect(error("[geometry]\n" + line + "\n") == ConfigError(path: "g.toml", line: 2, message: message))
    }

    /// A key or value quoted in a message keeps its escapes escaped (TOML's `\u001b` would
    /// otherwise put a raw ESC on the operator's terminal and in the log).
    @Test func errorsEscapeControlCharactersTheyQuote() {
        let error = error(#"[daemon]"# + "\n" + #""\u001b[2J\u0000" = 1"# + "\n")
        #expect(error?.description == #"g.toml:2: unknown key '\u{1B}[2J\u{0}' in [daemon]"#)
    }

    @Test func sensibleGeometryIsAccepted() throws {
        let configuration = try ConfigLoader.parse(
            text: """
                [geometry]
                calibration = [0, 1, 0, -1, 0, 1]
                physical-size = [1, 10000]
                [[device]]
                match-name = "wall"
                calibration = [0.125, 0, 0.875, 0, 1, 0]
                """, path: "g.toml")
        #expect(configuration.defaultGeometry.calibration == [0, 1, 0, -1, 0, 1])
        #expect(configuration.devices[0].geometry.calibration == [0.125, 0, 0.875, 0, 1, 0])
    }
}
