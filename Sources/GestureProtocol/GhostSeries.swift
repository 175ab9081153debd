/// A periodic series of ghost touches touch hygiene learned on a device: short, motionless
/// touches at one point on a fixed period (`status`'s `ghosts`). An operator sees where a
/// panel ghosts, how often, and how many such touches it made.
public struct GhostSeries: Sendable, Hashable {
    /// The device's name (as in events' `device` field).
    public var device: String
    /// Where the touches are, normalised screen space.
    public var location: Point
    /// The interval between touch-downs.
    public var period: TimeSpan
    /// The touches of the series so far (the ones that taught it included).
    public var count: UInt64

    public init(device: String, location: Point, period: TimeSpan, count: UInt64) {
        self.device = device
        self.location = location
        self.period = period
        self.count = count
    }
}
