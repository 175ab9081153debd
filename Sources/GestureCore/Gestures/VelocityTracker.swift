import GestureProtocol

/// Least-squares velocity over the recent samples of a quantity (a drag's translation, a
/// pinch's scale, a rotation's angle), in a fixed ring (no allocation after init).
struct VelocityTracker<Value: TrackedQuantity> {
    struct Sample {
        var time: Timestamp
        var value: Value
    }

    /// Samples kept; at 1 kHz this still covers 128 ms. A power of two (`previous`).
    static var capacity: Int { 128 }
    /// A finger that rested this long before lifting throws nothing (Flutter's rule).
    static var stillnessBeforeLift: TimeSpan { .microseconds(40_000) }

    private var samples: [Sample]
    private var newest = -1
    private var count = 0
    private(set) var lastMotionTime: Timestamp = .zero

    init() {
        samples = Array(repeating: Sample(time: .zero, value: .zero), count: Self.capacity)
    }

    mutating func reset(time: Timestamp) {
        newest = -1
        count = 0
        lastMotionTime = time
    }

    mutating func add(time: Timestamp, value: Value) {
        newest = (newest + 1) % Self.capacity
        samples[newest] = Sample(time: time, value: value)
        count = min(count + 1, Self.capacity)
        lastMotionTime = time
    }

    /// Change per second by least squares over the samples of the last `window` (at least
    /// the two newest). Zero with fewer than two samples. Two passes (means, then
    /// deviations) over the ring, read through one buffer pointer (no bounds check per
    /// sample; the ring index is always below `capacity`); each sample's time relative to
    /// the newest is computed once, in the first pass, and kept on the stack for the second
    /// (the same doubles: no division per sample the second time).
    func velocity(window: TimeSpan) -> Value {
        guard count >= 2 else { return .zero }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: Self.capacity) { times in
            velocity(window: window, times: times)
        }
    }

    /// The velocity at a lift: zero when the quantity rested longer than
    /// `stillnessBeforeLift` before `time`, else `velocity(window:)`.
    func velocity(window: TimeSpan, liftingAt time: Timestamp) -> Value {
        time - lastMotionTime > Self.stillnessBeforeLift ? .zero : velocity(window: window)
    }

    /// `velocity(window:)` with room for the relative time of every sample.
    @inline(__always)
    private func velocity(window: TimeSpan, times: UnsafeMutableBufferPointer<Double>) -> Value {
        samples.withUnsafeBufferPointer { samples in
            let now = samples[newest].time
            let oldest = now - window
            var used = 0
            var index = newest
            var sumT = 0.0
            var sumX = Value.zero
            while used < count {
                let sample = samples[index]
                if used >= 2 && sample.time < oldest { break }
                let t = -(now - sample.time).seconds
                times[used] = t
                sumT += t
                sumX = sumX + sample.value
                used &+= 1
                index = Self.previous(index)
            }
            let n = Double(used)
            let meanT = sumT / n
            let meanX = sumX / n
            var stt = 0.0
            var stx = Value.zero
            index = newest
            for step in 0..<used {
                let dt = times[step] - meanT
                stt += dt * dt
                stx = stx + (samples[index].value - meanX) * dt
                index = Self.previous(index)
            }
            guard stt > 0 else { return .zero }
            return stx / stt
        }
    }

    /// The ring index before `index` (0…capacity − 1): a mask, `capacity` being a power of two.
    @inline(__always)
    private static func previous(_ index: Int) -> Int {
        (index &+ capacity &- 1) & (capacity &- 1)
    }
}
