/// Threshold comparisons allow for floating-point rounding, so that "≥ 100 mm/s" holds at
/// exactly 100 mm/s and "≥ 10 mm" at exactly 10 mm wherever the stroke starts (the velocity
/// and the accumulated translation are sums of many small terms, whose last bits depend on
/// the absolute position). The slack is relative: 1e-9 of the threshold (at least 1e-9 of
/// its unit), a nanometre on a millimetre threshold, far below any physical meaning.
enum Tolerance {
    static let relative = 1e-9

    /// The rounding slack allowed around `threshold`.
    static func slack(_ threshold: Double) -> Double { relative * max(1, abs(threshold)) }
}

extension Double {
    /// `self ≥ threshold` ("at least"), allowing for rounding.
    func reaches(_ threshold: Double) -> Bool { self >= threshold - Tolerance.slack(threshold) }

    /// `self > threshold` ("more than") by more than rounding.
    func exceeds(_ threshold: Double) -> Bool { self > threshold + Tolerance.slack(threshold) }
}
