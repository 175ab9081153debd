/// Pure-Swift arctangent (GestureCore imports neither Foundation nor libc).
enum Trigonometry {
    static let pi = 3.141592653589793
    static let degreesPerRadian = 180 / pi

    /// atan2(y, x) in radians, in (−π, π]; absolute error below 1e-12.
    static func atan2(_ y: Double, _ x: Double) -> Double {
        let ax = abs(x)
        let ay = abs(y)
        if ax == 0 && ay == 0 { return 0 }
        let steep = ay > ax
        var angle = atanOfUnit(steep ? ax / ay : ay / ax)
        if steep { angle = pi / 2 - angle }
        if x < 0 { angle = pi - angle }
        return y < 0 ? -angle : angle
    }

    /// atan(t) for t in 0…1.
    private static func atanOfUnit(_ t: Double) -> Double {
        let tanPiOver8 = 0.41421356237309503
        if t > tanPiOver8 { return pi / 4 + atanSeries((t - 1) / (t + 1)) }
        return atanSeries(t)
    }

    /// Taylor series of atan for |z| ≤ tan(π/8), to z^31.
    private static func atanSeries(_ z: Double) -> Double {
        let z2 = z * z
        var term = z
        var sum = 0.0
        var sign = 1.0
        var n = 1.0
        while n <= 31 {
            sum += sign * term / n
            term *= z2
            sign = -sign
            n += 2
        }
        return sum
    }
}
