import Glibc

/// A synthetic evemu recording: ten fingers on a 240 Hz protocol-B touchscreen (the ELAN
/// Touchscreen description of demo/demo.events), moving together for two seconds while the
/// hand opens and turns (drag + pinch + rotate at once, one gesture line per recognizer per
/// frame), lifted for 200 ms, again, for about `seconds`. The same motion as the engine
/// benchmark's "Steady: 10-finger drag+pinch+rotate".
enum TenFingerRecording {
    /// The device part of demo/demo.events (every line before its first event): the ELAN
    /// Touchscreen description (whot/evemu-devices, MIT; see demo/LICENSE.evemu-devices).
    static var header: String {
        let demo = String(#filePath.split(separator: "/").dropLast(4).joined(separator: "/"))
        let path = "/" + demo + "/demo/demo.events"
        guard let file = fopen(path, "r") else { fatalError("cannot read \(path)") }
        defer { fclose(file) }
        var text = "# Synthetic load for the daemon benchmark: ten fingers at 240 Hz (drag + pinch + rotate).\n"
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let current = String(cString: line)
            if current.hasPrefix("E:") { break }
            if !current.hasPrefix("#") { text += current }
        }
        return "# EVEMU 1.3\n" + text
    }

    static let frameInterval = 1.0 / 240
    /// Frames per stroke (two seconds at 240 Hz).
    static let strokeFrames = 480

    /// The recording's text, and how many frames (SYN_REPORTs) it has.
    static func make(seconds: Double) -> (text: String, frames: Int) {
        var text = header
        var frames = 0
        var time = 0.5
        var trackingID = 100
        func event(_ type: Int, _ code: Int, _ value: Int) {
            text += "E: \(format(time)) \(hex(type)) \(hex(code)) \(value)\n"
        }
        func positions(_ step: Int) -> [(x: Int, y: Int)] {
            let t = Double(step) / Double(strokeFrames)
            let radius = 150 + 450 * t
            let angle = 1.2 * t
            let centreX = 1000 + 1300 * t
            let centreY = 936 + 200 * (t - 0.5)
            return (0..<10).map { slot in
                let a = angle + Double(slot) * 2 * Double.pi / 10
                return (Int(centreX + radius * cos(a)), Int(centreY + radius * sin(a)))
            }
        }
        let laps = max(1, Int((seconds / (Double(strokeFrames) * frameInterval + 0.2)).rounded()))
        for _ in 0..<laps {
            for step in 0..<strokeFrames {
                for (slot, point) in positions(step).enumerated() {
                    event(3, 0x2F, slot)
                    if step == 0 {
                        trackingID += 1
                        event(3, 0x39, trackingID)
                    }
                    event(3, 0x35, point.x)
                    event(3, 0x36, point.y)
                }
                if step == 0 {
                    event(1, 0x14A, 1)  // BTN_TOUCH
                    event(3, 0x00, positions(0)[0].x)
                    event(3, 0x01, positions(0)[0].y)
                }
                event(0, 0, 0)
                frames += 1
                time += frameInterval
            }
            for slot in 0..<10 {
                event(3, 0x2F, slot)
                event(3, 0x39, -1)
            }
            event(1, 0x14A, 0)
            event(0, 0, 0)
            frames += 1
            time += 0.2
        }
        return (text, frames)
    }

    private static func hex(_ value: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func format(_ seconds: Double) -> String {
        let micros = Int((seconds * 1_000_000).rounded())
        let fraction = String(micros % 1_000_000)
        return "\(micros / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)"
    }
}
