import ConfigFile
import GestureCore
import Testing

/// `[[device]] pass-through`, `wake-swallow` and `[[region]] reserve`.
@Suite struct PassThroughConfigTests {
    @Test func keysReachTheResolvedSettings() throws {
        let config = try ConfigLoader.parse(
            text: """
                [[region]]
                name = "exit-edge"
                rect = [0.0, 0.0, 1.0, 0.05]
                reserve = true
                [[region]]
                name = "page"
                rect = [0.0, 0.0, 1.0, 1.0]
                [[device]]
                match-name = "ELAN*"
                pass-through = true
                wake-swallow = true
                """, path: "g.toml")
        let elan = config.settings(forDevice: "ELAN Touchscreen", vendor: 0, product: 0, paths: [])
        #expect(elan.passThrough && elan.wakeSwallow && elan.grab, "pass-through implies grab")
        #expect(config.engine.regions.map(\.reserve) == [true, false])
        let policy = PassThroughPolicy(engine: elan.engine, geometry: elan.geometry, wakeSwallow: elan.wakeSwallow)
        #expect(policy.reserved == [.init(name: "exit-edge", rect: Rect(x: 0, y: 0, width: 1, height: 0.05))])
        let other = config.settings(forDevice: "eGalax", vendor: 0, product: 0, paths: [])
        #expect(!other.passThrough && !other.grab && !other.wakeSwallow)
    }

    @Test(arguments: [
        ("[[device]]\nmatch-name = \"*\"\nwake-swallow = true\n", 3, "'wake-swallow' in [[device]] needs pass-through = true"),
        (
            "[[device]]\nmatch-name = \"*\"\npass-through = true\ngrab = false\n", 4,
            "'grab' in [[device]] cannot be false with pass-through = true"
        ),
        ("[[device]]\nmatch-name = \"*\"\npass-through = 1\n", 3, "pass-through"),
        ("[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\nreserve = \"yes\"\n", 4, "reserve"),
    ])
    func contradictionsAndTypesAreErrors(_ text: String, _ line: Int, _ fragment: String) {
        #expect {
            _ = try ConfigLoader.parse(text: text, path: "g.toml")
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.line == line && error.message.contains(fragment)
        }
    }
}
