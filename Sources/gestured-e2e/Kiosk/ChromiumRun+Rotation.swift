import GestureCore
import GestureTestSupport

/// A portrait (or upside-down) cage kiosk: cage 0.1.4's `-r` turns its output a quarter
/// clockwise per flag and passes touches through unturned, so the panel, left in its own
/// orientation, reaches the page right only through a clone in screen orientation
/// (`clone-orientation = "screen"` with the matching `rotation`, docs/kiosk.md "Apps that read
/// the touchscreen themselves"). For 0°, 90° and 270°, cage and Chromium start again with the
/// guide's command line and that many `-r` (no flag for 0°, which keeps the stack already
/// running), gestured with the matching keys, and taps near each corner must click the page
/// where the panel was touched. The quarter turns are the ones that exchange the axes and
/// their ranges, and 90° and 270° tell a turn in the wrong direction apart; 180° (`-r -r`)
/// would be a third restart of cage and Chromium, about three minutes of the tier's longest
/// lane, for the one turn that only mirrors both axes: the end-to-end tier's reader of the
/// clone (`PassThroughScreenCases`) shows it, as every rotation, on the clone's node.
///
/// Where the panel was touched on the picture: wlroots draws a turned output through its
/// transform matrix (at `WL_OUTPUT_TRANSFORM_90` the buffer's, the panel's, top-left pixel
/// shows the layout's top-right corner and the buffer's x axis runs down the layout), which
/// is `PassThroughCases.screenPoint` in whole units; `expected` takes the point from there,
/// never from the daemon's transform.
extension ChromiumRun {
    /// Where the rotation cases tap, on the panel in its own orientation: near each corner,
    /// so that a rotation in the wrong direction (270° for 90°) or applied twice (by
    /// gestured and again by the compositor) lands each tap near another corner, hundreds
    /// of CSS px from its point (a tap in the middle would land right under every
    /// rotation); each a fifth of the screen or more below its top whatever the rotation,
    /// clear of the reserved top tenth; and one off every symmetry of the screen.
    static let cornerSpots = [Spot(0.2, 0.2), Spot(0.8, 0.2), Spot(0.8, 0.8), Spot(0.2, 0.8), Spot(0.33, 0.67)]

    /// How far from the touched point a tap on the turned screen may reach the page, in CSS
    /// px along each axis: through Xwayland a touch arrives in whole pixels up to 2 px up and
    /// left of its point (1.95 CSS px seen unturned); any error of the turn moves it hundreds.
    static let turnedScreenLimit = 2.0

    /// The rotation case's name at `rotation`.
    func rotationCase(_ rotation: Rotation) -> String {
        let flags = Array(repeating: CompositorSetup.cageQuarterTurn, count: rotation.rawValue / 90).joined(separator: " ")
        return name(
            "screen-oriented clone at \(rotation.rawValue)° (cage \(flags.isEmpty ? "without -r" : flags), gestured rotation = \(rotation.rawValue)): taps near each corner click where touched, within \(Int(Self.turnedScreenLimit)) CSS px"
        )
    }

    /// The turns shown through cage (the type's comment says why 180° is not among them).
    static let turnsThroughCage: [Rotation] = [.none, .quarter, .threeQuarters]

    /// The rotation cases, each wanted one in turn (the compositor restarts only for them).
    func runRotations(_ harness: Harness) {
        for rotation in Self.turnsThroughCage {
            harness.run(rotationCase(rotation)) { try clicksOnTurnedScreen(rotation) }
        }
    }

    /// Turns cage's output by `rotation` (cage and Chromium start again unless the output is
    /// so turned already), starts gestured with the matching screen-oriented clone, and taps
    /// `cornerSpots`.
    func clicksOnTurnedScreen(_ rotation: Rotation) throws(CaseFailure) {
        if compositor == nil || rotation != screenRotation ?? .none {
            daemon?.stop()
            daemon = nil
            subscriber = nil
            compositor?.stop()
            compositor = nil
            try startBrowser(setup: recipe.setup.turningCage(by: rotation), name: "\(kind.rawValue)-chromium-\(rotation.rawValue)")
        }
        screenRotation = rotation
        try startDaemon(config: KioskCases.config(deviceKeys: PassThroughCases.screenKeys(rotation)))
        try tapsClick(at: Self.cornerSpots, within: Self.turnedScreenLimit)
    }
}
