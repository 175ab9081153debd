import GestureTestSupport

extension Spot {
    /// Where a probe's try `attempt` (from 0) taps when its first try taps here: 3 % of the
    /// width further left each time, so that no retry repeats a point. A tap repeated at one
    /// point defeats a probe twice over: touch hygiene learns taps at one point every 20 s as
    /// a ghost series (`ChromiumRun.probe`), and cage 0.1.4 gives a surface the pointer only
    /// when the pointer moves (`KioskPointerRun.probeStart`).
    func probeTry(_ attempt: Int) -> Spot {
        Spot(x - 0.03 * Double(attempt), y)
    }
}
