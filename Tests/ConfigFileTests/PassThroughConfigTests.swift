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
                wake-guard = 450
                [[device]]
                match-name = "eGalax*"
                pass-through = true
                wake-swallow = true
                """, path: "g.toml")
        let elan = config.settings(forDevice: "ELAN Touchscreen", vendor: 0, product: 0, paths: [])
        #expect(elan.passThrough && elan.wakeSwallow && elan.grab, "pass-through implies grab")
        #expect(config.engine.regions.map(\.reserve) == [true, false])
        #expect(elan.wakeGuard == .milliseconds(450))
        #expect(config.settings(forDevice: "eGalax", vendor: 0, product: 0, paths: []).wakeGuard == .milliseconds(300))
        let policy = PassThroughPolicy(engine: elan.engine, geometry: elan.geometry, wakeSwallow: elan.wakeSwallow)
        #expect(policy.reserved == [.init(name: "exit-edge", rect: Rect(x: 0, y: 0, width: 1, height: 0.05))])
        let other = config.settings(forDevice: "Wacom", vendor: 0, product: 0, paths: [])
        #expect(!other.passThrough && !other.grab && !other.wakeSwallow)
    }

    /// `clone-orientation`: the panel's by default, the screen's where the entry says so.
    @Test func cloneOrientationReachesTheResolvedSettings() throws {
        let config = try ConfigLoader.parse(
            text: """
                [[device]]
                match-name = "ELAN*"
                pass-through = true
                rotation = 90
                clone-orientation = "screen"
                [[device]]
                match-name = "eGalax*"
                pass-through = true
                """, path: "g.toml")
        let elan = config.settings(forDevice: "ELAN Touchscreen", vendor: 0, product: 0, paths: [])
        #expect(elan.cloneOrientation == .screen && elan.geometry.rotation == .quarter)
        #expect(config.settings(forDevice: "eGalax", vendor: 0, product: 0, paths: []).cloneOrientation == .panel)
    }

    /// `app-fingers` and `app-long-press` per region and per device: a touch takes each key
    /// from the innermost region around its touch-down point that sets it, else the device's.
    @Test func appKeysReachThePolicyPerRegionAndDevice() throws {
        let config = try ConfigLoader.parse(
            text: """
                [[region]]
                name = "page"
                rect = [0.0, 0.0, 1.0, 1.0]
                app-long-press = false
                [[region]]
                name = "map"
                rect = [0.5, 0.0, 0.5, 1.0]
                app-fingers = 2
                long-press.minimum-duration = 800
                tap.slop = 6
                [[device]]
                match-name = "ELAN*"
                pass-through = true
                app-fingers = 1
                """, path: "g.toml")
        let elan = config.settings(forDevice: "ELAN Touchscreen", vendor: 0, product: 0, paths: [])
        #expect(elan.app == AppTouchSettings(fingers: 1))
        #expect(config.engine.regions.map(\.app) == [AppTouchSettings(longPress: false), AppTouchSettings(fingers: 2)])
        let policy = PassThroughPolicy(engine: elan.engine, geometry: elan.geometry, wakeSwallow: false, app: elan.app)
        #expect(policy.app.device == AppTouchSettings(fingers: 1))
        #expect(policy.app.areas.map(\.app) == [AppTouchSettings(fingers: 2), AppTouchSettings(longPress: false)], "innermost first")
        #expect(
            policy.app.areas.map(\.limits) == [
                .init(slop: .millimetres(6), duration: .milliseconds(800)), .init(slop: .millimetres(3), duration: .milliseconds(500)),
            ])
        let other = config.settings(forDevice: "eGalax", vendor: 0, product: 0, paths: [])
        #expect(other.app == AppTouchSettings())
    }

    /// `app-input` and `pointer-drag` per region and per device: a region's own keys win
    /// for the touches that start in it; the device needs a pointer when any touch can be one.
    @Test func appInputReachesThePolicyPerRegionAndDevice() throws {
        let config = try ConfigLoader.parse(
            text: """
                [[region]]
                name = "list"
                rect = [0.0, 0.5, 1.0, 0.5]
                pointer-drag = "scroll"
                [[region]]
                name = "keyboard"
                rect = [0.0, 0.0, 1.0, 0.25]
                app-input = "touch"
                [[device]]
                match-name = "ELAN*"
                pass-through = true
                app-input = "pointer"
                [[device]]
                match-name = "eGalax*"
                pass-through = true
                """, path: "g.toml")
        let elan = config.settings(forDevice: "ELAN Touchscreen", vendor: 0, product: 0, paths: [])
        #expect(elan.app == AppTouchSettings(input: .pointer))
        #expect(config.engine.regions.map(\.app) == [AppTouchSettings(pointerDrag: .scroll), AppTouchSettings(input: .touch)])
        let policy = PassThroughPolicy(engine: elan.engine, geometry: elan.geometry, wakeSwallow: false, app: elan.app)
        #expect(policy.app.usesPointer)
        let egalax = config.settings(forDevice: "eGalax", vendor: 0, product: 0, paths: [])
        #expect(!PassThroughPolicy(engine: egalax.engine, geometry: egalax.geometry, wakeSwallow: false, app: egalax.app).app.usesPointer)
        let byRegion = try ConfigLoader.parse(
            text: "[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\napp-input = \"pointer\"\n", path: "g.toml")
        #expect(AppTouchPolicy(engine: byRegion.engine, device: AppTouchSettings()).usesPointer)
    }

    /// `clone-name` names the clone of each device the entry matches; without it the clone
    /// keeps the device's own name (nil).
    @Test func cloneNameReachesTheResolvedSettings() throws {
        let config = try ConfigLoader.parse(
            text: """
                [[device]]
                match-name = "*generic ft5x06 (*)"
                pass-through = true
                clone-name = "gestured touchscreen"
                [[device]]
                match-name = "ELAN*"
                pass-through = true
                """, path: "g.toml")
        for name in ["10-0038 generic ft5x06 (79)", "4-0038 generic ft5x06 (00)"] {
            #expect(config.settings(forDevice: name, vendor: 0, product: 0, paths: []).cloneName == "gestured touchscreen")
        }
        #expect(config.settings(forDevice: "ELAN Touchscreen", vendor: 0, product: 0, paths: []).cloneName == nil)
        let longest = String(repeating: "n", count: DeviceSettings.longestCloneName)
        let long = try ConfigLoader.parse(
            text: "[[device]]\nmatch-name = \"*\"\npass-through = true\nclone-name = \"\(longest)\"\n", path: "g.toml")
        #expect(long.devices.first?.cloneName == longest)
    }

    @Test(arguments: [
        ("[[device]]\nmatch-name = \"*\"\nclone-name = \"kiosk\"\n", 3, "'clone-name' in [[device]] needs pass-through = true"),
        ("[[device]]\nmatch-name = \"*\"\npass-through = true\nclone-name = \"\"\n", 4, "'clone-name' in [[device]] must be 1 to 79 bytes"),
        (
            "[[device]]\nmatch-name = \"*\"\npass-through = true\nclone-name = \"\(String(repeating: "n", count: 80))\"\n", 4,
            "'clone-name' in [[device]] must be 1 to 79 bytes"
        ),
        ("[[device]]\nmatch-name = \"*\"\npass-through = true\nclone-name = \"a\\tb\"\n", 4, "no control characters"),
        ("[[device]]\nmatch-name = \"*\"\npass-through = true\nclone-name = 1\n", 4, "'clone-name' in [[device]] must be a string"),
        ("[[device]]\nmatch-name = \"*\"\nwake-swallow = true\n", 3, "'wake-swallow' in [[device]] needs pass-through = true"),
        (
            "[[device]]\nmatch-name = \"*\"\npass-through = true\ngrab = false\n", 4,
            "'grab' in [[device]] cannot be false with pass-through = true"
        ),
        ("[[device]]\nmatch-name = \"*\"\npass-through = 1\n", 3, "pass-through"),
        ("[[device]]\nmatch-name = \"*\"\npass-through = true\nwake-swallow = true\nwake-guard = -1\n", 5, "wake-guard"),
        ("[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\nreserve = \"yes\"\n", 4, "reserve"),
        ("[[device]]\nmatch-name = \"*\"\napp-fingers = 1\n", 3, "'app-fingers' in [[device]] needs pass-through = true"),
        ("[[device]]\nmatch-name = \"*\"\napp-long-press = false\n", 3, "'app-long-press' in [[device]] needs pass-through = true"),
        ("[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\napp-fingers = 0\n", 4, "app-fingers"),
        ("[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\napp-fingers = 33\n", 4, "app-fingers"),
        ("[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\napp-long-press = \"no\"\n", 4, "app-long-press"),
        ("[[device]]\nmatch-name = \"*\"\npass-through = true\napp-fingers = 1.5\n", 4, "app-fingers"),
        (
            "[[device]]\nmatch-name = \"*\"\nclone-orientation = \"screen\"\n", 3,
            "'clone-orientation' in [[device]] needs pass-through = true"
        ),
        (
            "[[device]]\nmatch-name = \"*\"\npass-through = true\nclone-orientation = \"screeen\"\n", 4,
            "must be one of 'panel', 'screen', not 'screeen'"
        ),
        ("[[device]]\nmatch-name = \"*\"\npass-through = true\nclone-orientation = 90\n", 4, "clone-orientation"),
        ("[[device]]\nmatch-name = \"*\"\napp-input = \"pointer\"\n", 3, "'app-input' in [[device]] needs pass-through = true"),
        ("[[device]]\nmatch-name = \"*\"\npointer-drag = \"scroll\"\n", 3, "'pointer-drag' in [[device]] needs pass-through = true"),
        (
            "[[device]]\nmatch-name = \"*\"\npass-through = true\napp-input = \"mouse\"\n", 4,
            "'app-input' in [[device]] must be one of 'touch', 'pointer', not 'mouse'"
        ),
        (
            "[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\npointer-drag = \"scrol\"\n", 4,
            "must be one of 'button', 'scroll', not 'scrol' (did you mean 'scroll'?)"
        ),
        ("[[region]]\nname = \"a\"\nrect = [0, 0, 1, 1]\napp-input = true\n", 4, "'app-input' in [[region]] 'a' must be a string"),
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
