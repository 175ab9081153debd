import Foundation
import GestureClient
import GestureCore
import Glibc
import Recordings
import SystemCalls

/// A corpus recording played through the kernel; `reason` says what it exercises.
struct ChosenRecording {
    let path: String
    let reason: String
}

/// Recordings played through the kernel must give the gestures the engine gives for the
/// same events. The expectation is computed from the events as the kernel delivered them
/// (read back from the node, with the kernel's timestamps), not as recorded: an emulated
/// machine that plays a recording late or unevenly changes the input, and the daemon must
/// classify the input it got. So recordings with gestures near a timing threshold are fine
/// here too.
let chosenRecordings: [ChosenRecording] = [
    .init(path: "evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events", reason: "one-finger drag"),
    .init(
        path: "evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events",
        reason: "9 fast taps: multi-tap counts 1 2 3"),
    .init(path: "evemu-devices/touchscreens/Atmel maXTouch Touchscreen.2-fingers-touch-release.events", reason: "two-finger drag"),
    .init(path: "evemu-devices/touchscreens/Atmel maXTouch Touchscreen.4-finger-drag-down.events", reason: "four-finger drag"),
    .init(path: "evemu-devices/touchscreens/ELAN CANDO Windows7.1-finger-drag-up-down.events", reason: "drag"),
    .init(path: "evemu-devices/touchscreens/EP0430M09.1-finger-drag-up-down.events", reason: "drag"),
    .init(path: "evemu-devices/touchscreens/EP0430M09.2-finger-scroll-down.events", reason: "two-finger scroll"),
    .init(
        path: "evemu-devices/touchscreens/EP0430M09.2-fingers-touch-release.events",
        reason: "held 527 ms: tap or long press at the margin, decided by the delivered timestamps"),
    .init(path: "evemu-devices/touchscreens/EP0430M09.4-finger-drag-down.events", reason: "four-finger drag"),
    .init(path: "evemu-devices/touchscreens/N-Trig MultiTouch.1-finger-drag-NW-SE.events", reason: "protocol A drag"),
    .init(
        path: "evemu-devices/touchscreens/N-Trig MultiTouch.2-fingers-touch-release.events", reason: "protocol A; held 2993 ms: long press"),
    .init(
        path: "evemu-devices/touchscreens/QUANTA OpticalTouchScreen.touch-on-left.events", reason: "single touch held 927 ms: long press"),
    .init(path: "evemu-devices/touchscreens/QUANTA OpticalTouchScreen.touch-hover.events", reason: "single-touch drag"),
    .init(path: "evemu-data/ntrig-dell-xt2.event", reason: "four-finger tap"),
    .init(path: "evemu-data/3m.event", reason: "multi-tap gaps and swipes near the thresholds"),
]

/// What is compared: kind, phase, count, fingers, direction. `changed` is left out: how
/// many there are depends on how frames group, not on classification.
func signature(_ g: GestureMessage) -> String? {
    guard g.phase != .changed else { return nil }
    var text = "\(g.gesture) \(g.phase) f\(g.fingers)"
    if let count = g.count { text += " c\(count)" }
    if let direction = g.direction { text += " \(direction)" }
    return text
}

/// The signatures of what `gestured replay` gives for `recording`: the engine with the
/// default configuration, its output decoded as a client decodes the daemon's.
func replayedSignatures(_ recording: Recording) -> [String] {
    var want: [String] = []
    var replayer = Replayer(configuration: Configuration())
    replayer.replay(recording) { bytes in
        want += bytes.split(separator: UInt8(ascii: "\n")).compactMap {
            Received(line: Array($0), receivedAt: 0).gesture.flatMap(signature)
        }
    }
    return want
}

struct ReplayCases {
    let daemon: DaemonProcess
    let corpus: String
    let subscriber: Subscriber
    /// Why hot-plug cannot work (the hot-plug case failed): then each recording fails at
    /// once with this reason instead of waiting for an announcement that cannot come.
    let hotPlugBroken: String?

    func run(_ harness: Harness) {
        for chosen in chosenRecordings {
            let file = (chosen.path as NSString).lastPathComponent
            harness.run("recording through the kernel = the engine on what the kernel delivered [\(file)]") {
                if let hotPlugBroken { throw CaseFailure(hotPlugBroken) }
                try play(chosen)
            }
        }
    }

    func play(_ chosen: ChosenRecording) throws {
        let path = "\(corpus)/\(chosen.path)"
        let recording: Recording
        do {
            guard let first = try RecordingReader.read(path: path).first else { throw CaseFailure("\(path): no recording") }
            recording = first
        } catch let error as RecordingError {
            throw CaseFailure("\(error)")
        }
        _ = subscriber.drain(quiet: 0.3)
        let panel = try TouchPanel(recording.device)
        // Our own reader of the node, open before the first event (events written before a
        // reader opens are never seen by it).
        let delivered = try NodeReader(path: panel.devnode)
        try awaitDevice(subscriber, panel.name, .added)
        let logMark = daemon.logSize
        // One write per frame, at the recorded offsets; our reader drains while we wait.
        var frame: [InputEvent] = []
        let origin = recording.events.first?.time ?? .zero
        let start = monotonicMicroseconds()
        for event in recording.events {
            if event.type == EV.syn && event.code == SYN.dropped { continue }
            frame.append(event)
            if event.type == EV.syn && event.code == SYN.report {
                try delivered.read(until: start + (event.time - origin).microseconds, alongside: subscriber)
                try panel.write(frame)
                frame.removeAll()
            }
        }
        // Let timers (long press, multi-tap window) run out, then unplug.
        try delivered.read(until: monotonicMicroseconds() + 700_000, alongside: subscriber)
        let messages = subscriber.drain(quiet: 0.5)
        try expect(overflows(messages).count == 0, "the driver's subscriber overflowed: the driver did not keep up reading")
        var gestures = messages.compactMap(\.gesture).filter { $0.device == panel.name }
        // A recording may end with fingers down: unplugging cancels them, as the end of a
        // replay does. Their `cancelled` lines come before the removal.
        panel.unplug()
        try subscriber.next("device removed \"\(panel.name)\"", timeout: 15) { received in
            if let gesture = received.gesture, gesture.device == panel.name { gestures.append(gesture) }
            if case .device(let device)? = received.message { return device.device.name == panel.name && device.phase == .removed }
            return false
        }
        let got = gestures.compactMap(signature)

        if daemon.log(since: logMark).contains(where: { $0.contains("events dropped by the kernel") && $0.contains(panel.name) }) {
            // The daemon fell behind and the kernel dropped events: then the protocol
            // promises that gestures in flight end `cancelled` and nothing is left open.
            try expectWellFormed(gestures)
            say(
                "  NOTE: the daemon fell behind on this machine (SYN_DROPPED): checked that every gesture ended or was cancelled, not the exact sequence"
            )
            return
        }
        let played = Recording(path: path, format: recording.format, device: recording.device, events: delivered.events)
        let want = replayedSignatures(played)
        try expect(
            got == want,
            "through the kernel: [\(got.joined(separator: ", "))]; the engine on the delivered events: [\(want.joined(separator: ", "))]")
    }
}

/// Every gesture id's phases form one whole: `began` (`changed`…) then exactly one of
/// `ended` / `cancelled`, or a single `ended` for a discrete gesture; nothing after the end.
func expectWellFormed(_ gestures: [GestureMessage]) throws(CaseFailure) {
    var open: [UInt64: GestureKind] = [:]
    var closed: Set<UInt64> = []
    for gesture in gestures {
        try expect(!closed.contains(gesture.id), "\(gesture.gesture) \(gesture.phase) after its id \(gesture.id) ended")
        switch gesture.phase {
        case .began:
            try expect(open[gesture.id] == nil, "\(gesture.gesture) id \(gesture.id) began twice")
            open[gesture.id] = gesture.gesture
        case .changed:
            try expect(open[gesture.id] != nil, "\(gesture.gesture) changed before it began")
        case .ended, .cancelled:
            open[gesture.id] = nil
            closed.insert(gesture.id)
        }
    }
    try expect(open.isEmpty, "never ended or cancelled: \(open.values.sorted())")
}
