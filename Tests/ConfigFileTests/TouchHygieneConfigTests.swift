import ConfigFile
import GestureCore
import GestureProtocol
import Testing

/// `[touch]` and `[device.touch]`.
@Suite struct TouchHygieneConfigTests {
    @Test func everyFilterIsOffByDefault() throws {
        let config = try ConfigLoader.parse(text: "", path: "g.toml")
        let settings = config.settings(forDevice: "ELAN Touchscreen", vendor: 0, product: 0, paths: [])
        #expect(settings.touch == TouchHygieneSettings())
        #expect(!settings.touch.isActive)
    }

    @Test func keysReachTheResolvedSettingsAndDeviceKeysOverrideOneByOne() throws {
        let config = try ConfigLoader.parse(
            text: """
                [touch]
                debounce = 40
                ignore-repeat = 150.5
                hold-duration = 0
                stuck-after = 30
                phantom = "suppress"
                shortest-contact = 0.5
                [[device]]
                match-name = "ELAN*"
                [device.touch]
                debounce = 80
                phantom = "off"
                shortest-contact = 1
                """, path: "g.toml")
        let other = config.settings(forDevice: "eGalax", vendor: 0, product: 0, paths: [])
        #expect(
            other.touch
                == TouchHygieneSettings(
                    debounce: .milliseconds(40), ignoreRepeat: .milliseconds(150.5), stuckAfter: .seconds(30), phantom: .suppress,
                    shortestContact: .microseconds(500)))
        let elan = config.settings(forDevice: "ELAN Touchscreen", vendor: 0, product: 0, paths: [])
        #expect(
            elan.touch
                == TouchHygieneSettings(
                    debounce: .milliseconds(80), ignoreRepeat: .milliseconds(150.5), stuckAfter: .seconds(30), phantom: .off,
                    shortestContact: .milliseconds(1)))
    }

    @Test(arguments: [
        ("[touch]\ndebounce = -1\n", 2, "'debounce' in [touch] must not be negative"),
        ("[touch]\nignore-repeat = \"40\"\n", 2, "'ignore-repeat' in [touch] must be a number"),
        ("[touch]\nhold-duration = 60001\n", 2, "'hold-duration' in [touch] must not be negative and at most 60000 ms"),
        ("[touch]\nstuck-after = -5\n", 2, "'stuck-after' in [touch] must not be negative"),
        ("[touch]\nstuck-after = 604801\n", 2, "at most 604800 s"),
        ("[touch]\nphantom = \"supress\"\n", 2, "'phantom' in [touch] must be one of 'off', 'suppress', not 'supress'"),
        ("[touch]\nphantom = true\n", 2, "'phantom' in [touch]"),
        ("[touch]\nshortest-contact = 1.5\n", 2, "'shortest-contact' in [touch] must not be negative and at most 1 ms"),
        ("[touch]\nshortest-contact = -1\n", 2, "'shortest-contact' in [touch] must not be negative"),
        ("[touch]\ndebounse = 40\n", 2, "unknown key 'debounse' in [touch]"),
        ("[[device]]\nmatch-name = \"*\"\n[device.touch]\ndebounce = -3\n", 4, "'debounce' in [device.touch] must not be negative"),
        ("touch = 3\n", 1, "touch"),
    ])
    func badValuesAreClearErrors(_ text: String, _ line: Int, _ fragment: String) {
        #expect {
            _ = try ConfigLoader.parse(text: text, path: "g.toml")
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.line == line && error.message.contains(fragment)
        }
    }
}
