import Foundation
import GestureClient
import GestureCore
import Recordings
#if canImport(Glibc)
import Glibc
#endif

/// A corpus recording whose gestures sit clear of every timing threshold, so TCG's timing
/// jitter cannot flip tap ↔ long press or a multi-tap count. Why each is safe: `reason`.
struct ChosenRecording {
    let path: String
    let reason: String
}

/// Recordings played through the kernel must give the gestures `gestured replay` gives.
let chosenRecordings: [ChosenRecording] = [
    .init(path: "evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events", reason: "drag begins 81 ms after touch-down (long press: 500)"),
    .init(path: "evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events", reason: "9 taps held 82-110 ms, 125-152 ms apart (multi-tap: 300 ms): counts 1 2 3 ×3"),
    .init(path: "evemu-devices/touchscreens/Atmel maXTouch Touchscreen.2-fingers-touch-release.events", reason: "2-finger drag begins at 232 ms (long press: 500)"),
    .init(path: "evemu-devices/touchscreens/Atmel maXTouch Touchscreen.4-finger-drag-down.events", reason: "drag begins at 97 ms"),
    .init(path: "evemu-devices/touchscreens/ELAN CANDO Windows7.1-finger-drag-up-down.events", reason: "drag begins at 96 ms"),
    .init(path: "evemu-devices/touchscreens/EP0430M09.1-finger-drag-up-down.events", reason: "drag begins at 66 ms"),
    .init(path: "evemu-devices/touchscreens/EP0430M09.2-finger-scroll-down.events", reason: "2-finger drag begins at 85 ms"),
    .init(path: "evemu-devices/touchscreens/EP0430M09.4-finger-drag-down.events", reason: "4-finger drag begins at 140 ms"),
    .init(path: "evemu-devices/touchscreens/N-Trig MultiTouch.1-finger-drag-NW-SE.events", reason: "protocol A; drag begins at 84 ms"),
    .init(path: "evemu-devices/touchscreens/N-Trig MultiTouch.2-fingers-touch-release.events", reason: "protocol A; held still 2993 ms: long press far past 500 ms"),
    .init(path: "evemu-devices/touchscreens/QUANTA OpticalTouchScreen.touch-on-left.events", reason: "single touch held still 927 ms: long press"),
    .init(path: "evemu-devices/touchscreens/QUANTA OpticalTouchScreen.touch-hover.events", reason: "drag begins at 103 ms"),
    .init(path: "evemu-data/ntrig-dell-xt2.event", reason: "4-finger tap held 117 ms (long press: 500)"),
]
// Left out: EP0430M09.2-fingers-touch-release (held 527 ms: tap vs long press at the
// margin), wetab (a 320 ms gap against the 300 ms multi-tap window), QUANTA
// OpticalTouchScreen.events (a drag that begins 383 ms after touch-down), 3m (a 433 ms
// multi-tap gap and swipes whose velocity depends on exact timing).

/// What is compared: kind, phase, count, fingers, direction. `changed` is left out: how
/// many there are depends on how frames group, not on classification.
func signature(_ g: GestureMessage) -> String? {
    guard g.phase != "changed" else { return nil }
    var text = "\(g.gesture) \(g.phase) f\(g.fingers)"
    if let count = g.count { text += " c\(count)" }
    if let direction = g.direction { text += " \(direction)" }
    return text
}

struct ReplayCases {
    let gestured: String
    let corpus: String
    let workDirectory: String
    let subscriber: Subscriber
    /// Why hot-plug cannot work (the hot-plug case failed): then each recording fails at
    /// once with this reason instead of waiting for an announcement that cannot come.
    let hotPlugBroken: String?

    func run(_ harness: Harness) {
        for (index, chosen) in chosenRecordings.enumerated() {
            let file = (chosen.path as NSString).lastPathComponent
            harness.run("recording through the kernel = gestured replay [\(file)]") {
                if let hotPlugBroken { throw CaseFailure(hotPlugBroken) }
                try play(chosen, index: index)
            }
        }
    }

    /// `gestured replay FILE`, run here, as signatures.
    func expected(_ path: String, index: Int) throws(CaseFailure) -> [String] {
        let output = "\(workDirectory)/replay-\(index).jsonl"
        let log = "\(workDirectory)/replay-\(index).log"
        let pid = try spawn(gestured, ["replay", path], logPath: log, stdoutPath: output)
        guard let status = waitForExit(pid, timeout: 120) else {
            kill(pid, SIGKILL)
            throw CaseFailure("gestured replay did not finish")
        }
        try expect(status == 0, "gestured replay exited \(status): \(tail(log))")
        guard let data = FileManager.default.contents(atPath: output) else { throw CaseFailure("no replay output") }
        return data.split(separator: UInt8(ascii: "\n")).compactMap {
            Received(line: Array($0), receivedAt: 0).gesture.flatMap(signature)
        }
    }

    func play(_ chosen: ChosenRecording, index: Int) throws {
        let path = "\(corpus)/\(chosen.path)"
        let want = try expected(path, index: index)
        let recording: Recording
        do {
            guard let first = try RecordingReader.read(path: path).first else { throw CaseFailure("\(path): no recording") }
            recording = first
        } catch let error as RecordingError {
            throw CaseFailure("\(error)")
        }
        _ = subscriber.drain(quiet: 0.3)
        let panel = try TouchPanel(recording.device)
        try awaitDevice(subscriber, panel.name, "added")
        // One write per frame, at the recorded offsets.
        var frame: [InputEvent] = []
        let origin = recording.events.first?.time ?? 0
        let start = monotonicMicroseconds()
        for event in recording.events {
            if event.type == EV.syn && event.code == SYN.dropped { continue }
            frame.append(event)
            if event.type == EV.syn && event.code == SYN.report {
                pause(until: start + (event.time &- origin))
                try panel.write(frame)
                frame.removeAll()
            }
        }
        // Let timers (long press, multi-tap window) run out, then unplug.
        pause(milliseconds: 700)
        var got: [String] = []
        let messages = subscriber.drain(quiet: 0.5)
        got += messages.compactMap(\.gesture).filter { $0.device == panel.name }.compactMap(signature)
        panel.unplug()
        try awaitDevice(subscriber, panel.name, "removed")
        try expect(got == want, "through the kernel: [\(got.joined(separator: ", "))]; gestured replay: [\(want.joined(separator: ", "))]")
    }
}
