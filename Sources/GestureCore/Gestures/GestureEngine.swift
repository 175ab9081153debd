/// Turns touch frames into gestures for one device: routes every touch sequence to the
/// innermost region containing its first touch, runs that region's recognizers, and fires
/// their timers. Pure and deterministic: time enters only with frames and with
/// `advance(to:)`; `nextDeadline` says when the caller must call `advance(to:)` next.
///
/// Semantics, state diagrams and every decision: docs/gestures.md.
public struct GestureEngine {
    /// Configured regions sorted by area (smallest first, so the first that contains a
    /// point is the innermost), then the defaults last.
    private var regions: [RegionRecognizers]
    /// Which region each live contact belongs to.
    private var routes: [(contact: UInt32, region: Int)] = []
    private let surface: PhysicalSize
    private var lastTime: UInt64 = 0
    private var generation: UInt32 = 0

    /// Routes one contact when a frame mentions it; grows only beyond this many contacts.
    private static let routeCapacity = 32

    /// Receives every recognizer state transition as "region recognizer: old → input → new"
    /// (nil: no strings are built at all).
    public var transitionLog: ((String) -> Void)? {
        didSet {
            for index in regions.indices { regions[index].reporter.log = transitionLog }
        }
    }

    /// - Parameters:
    ///   - configuration: defaults and regions (thresholds in mm and ms).
    ///   - surface: the surface's size in mm, for swipe edge margins.
    public init(configuration: EngineConfiguration, surface: PhysicalSize) {
        let sorted = configuration.regions.enumerated()
            .sorted { ($0.element.rect.area, $0.offset) < ($1.element.rect.area, $1.offset) }
            .map(\.element)
        regions = sorted.map { RegionRecognizers(name: $0.name, rect: $0.rect, settings: $0.settings) }
        regions.append(RegionRecognizers(name: nil, rect: nil, settings: configuration.defaults))
        self.surface = surface
        routes.reserveCapacity(Self.routeCapacity)
    }

    /// The earliest pending timer (µs), nil if none.
    public var nextDeadline: UInt64? {
        var earliest: UInt64?
        for region in regions {
            if let deadline = region.nextDeadline, deadline < (earliest ?? .max) || earliest == nil {
                earliest = deadline
            }
        }
        return earliest
    }

    /// Processes one frame: first fires every timer due at or before its time (in order),
    /// then the frame. A frame older than the last one is treated as happening at the last
    /// time seen.
    public mutating func process<S: GestureSink>(_ frame: TouchFrame, into sink: inout S) {
        let time = max(frame.time, lastTime)
        advance(to: time, into: &sink)
        generation &+= 1
        var downInFrame = 0
        var onlyRegion: Int?
        var severalRegions = false
        for contact in frame.contacts {
            let region: Int
            if let known = routes.firstIndex(where: { $0.contact == contact.id }) {
                region = routes[known].region
                regions[region].update(contact, generation: generation)
            } else {
                switch contact.phase {
                case .began, .moved:
                    // A contact first seen moving was down before we could observe it.
                    region = regionIndex(containing: contact.location)
                    routes.append((contact.id, region))
                    regions[region].add(contact, unobserved: contact.startedUnobserved || contact.phase == .moved, generation: generation)
                case .ended, .cancelled:
                    continue
                }
            }
            switch contact.phase {
            case .began, .moved: downInFrame += 1
            case .ended, .cancelled: break
            }
            if onlyRegion == nil { onlyRegion = region } else if onlyRegion != region { severalRegions = true }
        }
        // Fingers counted by BTN_TOOL_* but not tracked belong to the only region touched.
        let extraFingersRegion = (frame.fingerCount > downInFrame && !severalRegions) ? onlyRegion : nil
        for index in regions.indices where !regions[index].isIdle {
            regions[index].finishFrame(time: time, generation: generation, deviceFingers: index == extraFingersRegion ? frame.fingerCount : 0, surface: surface, sink: &sink)
        }
        pruneRoutes()
    }

    /// Fires every timer with a deadline at or before `time`, in deadline order, each event
    /// stamped with its deadline.
    public mutating func advance<S: GestureSink>(to time: UInt64, into sink: inout S) {
        let time = max(time, lastTime)
        while let (index, deadline) = earliestTimer(), deadline <= time {
            regions[index].fireTimers(upTo: deadline, sink: &sink)
        }
        lastTime = time
    }

    /// Device removed or SYN_DROPPED: fires due timers, then every gesture in flight ends
    /// `cancelled`, held-back exclusive taps are reported, and every contact is forgotten
    /// (contacts still down come back as unobserved ones).
    public mutating func cancelAll<S: GestureSink>(at time: UInt64, into sink: inout S) {
        advance(to: time, into: &sink)
        for index in regions.indices {
            regions[index].cancelAll(time: lastTime, sink: &sink)
        }
        routes.removeAll(keepingCapacity: true)
    }

    private func earliestTimer() -> (Int, UInt64)? {
        var earliest: (Int, UInt64)?
        for index in regions.indices {
            guard let deadline = regions[index].nextDeadline else { continue }
            if let current = earliest, current.1 <= deadline { continue }
            earliest = (index, deadline)
        }
        return earliest
    }

    private func regionIndex(containing location: Point) -> Int {
        for index in regions.indices {
            guard let rect = regions[index].rect else { return index }
            if rect.contains(location) { return index }
        }
        return regions.count - 1
    }

    private mutating func pruneRoutes() {
        var index = 0
        while index < routes.count {
            if regions[routes[index].region].owns(routes[index].contact) {
                index += 1
            } else {
                routes.remove(at: index)
            }
        }
    }
}
