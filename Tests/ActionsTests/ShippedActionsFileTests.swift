import Actions
import ConfigFile
import EvdevInput
import Foundation
import GestureCore
import GestureProtocol
import Testing

/// The shipped example file (`config/actions.toml`, the kiosk recipes of docs/actions.md) is valid and
/// says what its comments say.
@Suite struct ShippedActionsFileTests {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/actions.toml").path

    @Test func theShippedFileHoldsTheThreeKioskRecipes() throws {
        let file = try ActionsFileLoader.load(path: Self.path, keyCode: KeyNames.code)
        #expect(file.actions.map(\.trigger) == [.gesture(.swipe), .gesture(.longPress), .gesture(.tap), .idle, .active])
        let exit = file.actions[0]
        #expect(exit.filters == Action.Filters(direction: .down, edge: .top))
        #expect(exit.effect == .run(["systemctl", "--user", "restart", "kiosk-browser.service"]))
        #expect(exit.timeout == .seconds(30))
        #expect(file.actions[1].phase == .began)
        #expect(file.actions[1].filters.region == "admin-corner")
        #expect(file.actions[2].effect == .keys([KeyChord(codes: [29, 19], description: "KEY_LEFTCTRL+KEY_R")]))
        #expect(file.subscribedGestures == [.tap, .longPress, .swipe])
    }
}
