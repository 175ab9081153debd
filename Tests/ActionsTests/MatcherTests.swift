import Actions
import GestureCore
import GestureProtocol
import Testing

@Suite struct MatcherTests {
    static func swipe(
        region: String? = "exit-edge", device: String = "ELAN Touchscreen", fingers: Int = 1,
        direction: SwipeDirection = .down, edge: ScreenEdge? = .top
    ) -> ActionEvent {
        ActionEvent(
            trigger: .gesture(.swipe), phase: .ended, region: region, device: device, location: Point(x: 0.5, y: 0.4),
            fingers: fingers, direction: direction, edge: edge, line: "{\"type\":\"gesture\"}")
    }

    static func action(_ trigger: Action.Trigger, phase: GesturePhase? = .ended, _ filters: Action.Filters = Action.Filters()) -> Action {
        Action(line: 1, trigger: trigger, phase: phase, filters: filters, effect: .run(["true"]))
    }

    @Test(arguments: [
        (Action.Filters(), true),
        (Action.Filters(region: "exit-edge"), true),
        (Action.Filters(region: "menu"), false),
        (Action.Filters(device: "ELAN*"), true),
        (Action.Filters(device: "ELAN?Touchscreen"), true),
        (Action.Filters(device: "elan*"), false),
        (Action.Filters(device: "ELAN"), false),
        (Action.Filters(fingers: 1), true),
        (Action.Filters(fingers: 3), false),
        (Action.Filters(direction: .down), true),
        (Action.Filters(direction: .up), false),
        (Action.Filters(edge: .top), true),
        (Action.Filters(edge: .left), false),
        (Action.Filters(region: "exit-edge", device: "*", fingers: 1, direction: .down, edge: .top), true),
        (Action.Filters(region: "exit-edge", device: "*", fingers: 2, direction: .down, edge: .top), false),
    ])
    func eachGivenFilterMustHold(filters: Action.Filters, matches: Bool) {
        #expect(ActionMatcher.action(Self.action(.gesture(.swipe), filters), matches: Self.swipe()) == matches)
    }

    @Test func aFilterOnAFieldTheEventLacksDoesNotHold() {
        #expect(!ActionMatcher.action(Self.action(.gesture(.swipe), Action.Filters(edge: .top)), matches: Self.swipe(edge: nil)))
        #expect(!ActionMatcher.action(Self.action(.gesture(.swipe), Action.Filters(region: "a")), matches: Self.swipe(region: nil)))
    }

    @Test func kindAndPhaseMustBeTheAction() {
        let longPress = ActionEvent(
            trigger: .gesture(.longPress), phase: .began, device: "d", location: Point(x: 0, y: 0), fingers: 1, line: "")
        #expect(ActionMatcher.action(Self.action(.gesture(.longPress), phase: .began), matches: longPress))
        #expect(!ActionMatcher.action(Self.action(.gesture(.longPress), phase: .ended), matches: longPress))
        #expect(!ActionMatcher.action(Self.action(.gesture(.press), phase: .began), matches: longPress))
        let idle = ActionEvent(trigger: .idle, line: "")
        #expect(ActionMatcher.action(Self.action(.idle, phase: nil), matches: idle))
        #expect(!ActionMatcher.action(Self.action(.active, phase: nil), matches: idle))
    }

    @Test func everyMatchingActionRunsInFileOrder() {
        let matcher = ActionMatcher([
            Self.action(.gesture(.swipe), Action.Filters(edge: .top)),
            Self.action(.gesture(.tap)),
            Self.action(.gesture(.swipe)),
            Self.action(.gesture(.swipe), Action.Filters(edge: .bottom)),
        ])
        #expect(matcher.matches(Self.swipe()) == [0, 2])
    }

    @Test func theEnvironmentCarriesEveryFieldEmptyWhenAbsent() {
        let tap = ActionEvent(
            trigger: .gesture(.tap), phase: .ended, region: nil, device: "ELAN", location: Point(x: 0.25, y: 0.75),
            fingers: 2, count: 3, line: "{\"type\":\"gesture\",\"gesture\":\"tap\"}")
        let environment = Dictionary(uniqueKeysWithValues: tap.environment.map { ($0.name, $0.value) })
        #expect(
            environment == [
                "GESTURED_GESTURE": "tap", "GESTURED_PHASE": "ended", "GESTURED_REGION": "", "GESTURED_DEVICE": "ELAN",
                "GESTURED_X": "0.25", "GESTURED_Y": "0.75", "GESTURED_FINGERS": "2", "GESTURED_COUNT": "3",
                "GESTURED_DIRECTION": "", "GESTURED_EDGE": "", "GESTURED_EVENT": "{\"type\":\"gesture\",\"gesture\":\"tap\"}",
            ])
        let idle = Dictionary(uniqueKeysWithValues: ActionEvent(trigger: .idle, line: "L").environment.map { ($0.name, $0.value) })
        #expect(idle["GESTURED_GESTURE"] == "idle")
        #expect(idle["GESTURED_PHASE"] == "")
        #expect(idle["GESTURED_X"] == "")
        #expect(idle["GESTURED_EVENT"] == "L")
    }

    @Test func aChordPressesInOrderAndReleasesInReverse() {
        let chord = KeyChord(codes: [29, 42, 19], description: "KEY_LEFTCTRL+KEY_LEFTSHIFT+KEY_R")
        #expect(
            chord.events.map { [Int($0.type), Int($0.code), Int($0.value)] } == [
                [1, 29, 1], [1, 42, 1], [1, 19, 1], [0, 0, 0],
                [1, 19, 0], [1, 42, 0], [1, 29, 0], [0, 0, 0],
            ])
    }
}
