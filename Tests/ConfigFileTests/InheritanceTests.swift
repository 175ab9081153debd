import ConfigFile
import GestureCore
import Testing

private func load(_ text: String) throws -> Configuration {
    try ConfigLoader.parse(text: text, path: "test.toml")
}

@Suite struct InheritanceTests {
    static let layered = """
        [gestures]
        enabled = ["tap", "drag", "long-press"]
        [gestures.tap]
        slop = 4.0
        multi-tap-interval = 250

        [[region]]
        name = "button"
        rect = [0.4, 0.8, 0.2, 0.1]
        enabled = ["press", "tap"]
        tap = { exclusive = true, max-count = 2 }

        [[region]]
        name = "panel"
        rect = [0, 0.5, 1, 0.5]
        [region.long-press]
        minimum-duration = 800

        [[device]]
        match-name = "Big*"
        [device.gestures.tap]
        multi-tap-interval = 400

        [[device]]
        match-id = "04f3:010c"
        [device.gestures]
        enabled = ["swipe"]
        [[device.region]]
        name = "exit"
        rect = [0, 0, 1, 0.05]
        swipe.edge-margin = 8

        [[device]]
        match-path = "/dev/input/by-id/*-event-if00"
        rotation = 180
        """

    @Test func topLevelGesturesLayerOnTheBuiltInDefaults() throws {
        let defaults = try load(Self.layered).engine.defaults
        #expect(defaults.enabled == [.tap, .drag, .longPress])
        #expect(defaults.tap.slop == 4.0)
        #expect(defaults.tap.multiTapInterval == 250)
        #expect(defaults.tap.multiTapDistance == TapSettings().multiTapDistance)
        #expect(defaults.longPress == LongPressSettings())
    }

    @Test func regionsOverrideOnlyWhatTheySet() throws {
        let regions = try load(Self.layered).engine.regions
        #expect(regions.map(\.name) == ["button", "panel"])
        let button = regions[0].settings
        #expect(regions[0].rect == Rect(x: 0.4, y: 0.8, width: 0.2, height: 0.1))
        #expect(button.enabled == [.press, .tap])
        #expect(button.tap.exclusive)
        #expect(button.tap.maxCount == 2)
        #expect(button.tap.slop == 4.0, "inherited from [gestures.tap]")
        #expect(button.tap.multiTapInterval == 250, "inherited from [gestures.tap]")
        let panel = regions[1].settings
        #expect(panel.enabled == [.tap, .drag, .longPress], "inherited from [gestures]")
        #expect(panel.longPress.minimumDuration == 800)
        #expect(
            panel.tap
                == regions[0].settings.tap.with {
                    $0.exclusive = false
                    $0.maxCount = 3
                })
    }

    @Test func deviceGesturesLayerOnTopLevelAndReachTopLevelRegions() throws {
        let device = try load(Self.layered).devices[0]
        let engine = try #require(device.engine)
        #expect(engine.defaults.tap.multiTapInterval == 400)
        #expect(engine.defaults.tap.slop == 4.0)
        #expect(engine.regions.map(\.name) == ["button", "panel"])
        // The top-level regions now inherit from this device's gestures...
        #expect(engine.regions[1].settings.tap.multiTapInterval == 400)
        // ...while keeping their own overrides.
        #expect(engine.regions[0].settings.tap.exclusive)
        #expect(engine.regions[1].settings.longPress.minimumDuration == 800)
    }

    @Test func deviceRegionsReplaceTopLevelRegions() throws {
        let device = try load(Self.layered).devices[1]
        let engine = try #require(device.engine)
        #expect(engine.defaults.enabled == [.swipe])
        #expect(engine.regions.map(\.name) == ["exit"])
        #expect(engine.regions[0].settings.enabled == [.swipe])
        #expect(engine.regions[0].settings.swipe.edgeMargin == 8)
        #expect(engine.regions[0].settings.tap.slop == 4.0)
    }

    @Test func deviceWithoutGesturesUsesTheTopLevelEngineAndLayersGeometry() throws {
        let config = try load("[geometry]\nphysical-size = [300, 200]\ncalibration = [0, 1, 0, 1, 0, 0]\n" + Self.layered)
        let device = config.devices[2]
        #expect(device.engine == nil)
        #expect(device.geometry.rotation == .half)
        #expect(device.geometry.physicalSize == PhysicalSize(width: 300, height: 200))
        #expect(device.geometry.calibration == [0, 1, 0, 1, 0, 0])
        #expect(config.defaultGeometry.rotation == .none)
    }

    @Test func emptyPhysicalSizeClearsAnInheritedOne() throws {
        let config = try load("[geometry]\nphysical-size = [300, 200]\n[[device]]\nmatch-name = \"x\"\nphysical-size = []\n")
        #expect(config.defaultGeometry.physicalSize != nil)
        #expect(config.devices[0].geometry.physicalSize == nil)
    }

    @Test func sameRegionNameMayAppearOnDifferentDevices() throws {
        let text = """
            [[region]]
            name = "a"
            rect = [0, 0, 1, 1]
            [[device]]
            match-name = "x"
            [[device.region]]
            name = "a"
            rect = [0, 0, 0.5, 0.5]
            """
        let config = try load(text)
        #expect(config.devices[0].engine?.regions[0].rect.width == 0.5)
    }

    @Test func daemonKeys() throws {
        let config = try load(
            """
            [daemon]
            socket = "/tmp/g.sock"
            socket-mode = 0o600
            socket-group = "kiosk"
            max-clients = 3
            client-queue = 10
            slow-client = "disconnect"
            allowed-users = [0, 1000]
            allowed-groups = [100]
            log-level = "debug"
            use-touchpads = true
            """)
        #expect(config.daemon.socketPath == "/tmp/g.sock")
        #expect(config.daemon.socketMode == 0o600)
        #expect(config.daemon.socketGroup == "kiosk")
        #expect(config.daemon.maxClients == 3)
        #expect(config.daemon.clientQueueLength == 10)
        #expect(config.daemon.slowClientPolicy == .disconnect)
        #expect(config.daemon.allowedUsers == [0, 1000])
        #expect(config.daemon.allowedGroups == [100])
        #expect(config.daemon.logLevel == "debug")
        #expect(config.useTouchpads)
        #expect(try load("[daemon]\nsocket-mode = \"640\"").daemon.socketMode == 0o640)
    }

    @Test func compositionKeysOfRegions() throws {
        let config = try load(
            """
            [[region]]
            name = "page"
            rect = [0, 0, 1, 1]
            simultaneous = ["tap"]
            high-priority = ["swipe", "long-press"]

            [[region]]
            name = "dead"
            rect = [0, 0, 0.1, 0.1]
            fall-through = false
            enabled = []

            [[device]]
            match-name = "*"
            [[device.region]]
            name = "corner"
            rect = [0, 0, 0.2, 0.2]
            enabled = ["long-press"]
            high-priority = ["long-press"]
            """)
        let page = config.engine.regions[0]
        #expect(page.simultaneous == [.tap] && page.highPriority == [.swipe, .longPress] && page.fallThrough)
        let dead = config.engine.regions[1]
        #expect(!dead.fallThrough && dead.simultaneous.isEmpty && dead.highPriority.isEmpty && dead.settings.enabled.isEmpty)
        #expect(config.devices[0].engine?.regions[0].highPriority == [.longPress])
        // The defaults: every touch falls through, nothing runs beside or above.
        #expect(Region(name: "x", rect: .unit) == Region(name: "x", rect: .unit, fallThrough: true, simultaneous: [], highPriority: []))
    }

    @Test func regionsMayBeWrittenAsAnInlineArray() throws {
        let config = try load("region = [\n  { name = \"a\", rect = [0, 0, 0.5, 1] },\n  { name = \"b\", rect = [0.5, 0, 0.5, 1] },\n]\n")
        #expect(config.engine.regions.map(\.name) == ["a", "b"])
    }
}

extension TapSettings {
    func with(_ change: (inout TapSettings) -> Void) -> TapSettings {
        var copy = self
        change(&copy)
        return copy
    }
}
