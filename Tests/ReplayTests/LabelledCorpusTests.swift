import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import Recordings
import Testing

/// A recording and the gestures a person sees in it, written down after reading its events
/// (positions, timing, finger counts) and checking them against the file's name, which is not
/// always right: EP0430M09's y axis is inverted, so its "drag-down" moves up the screen; the
/// xorg N-Trig "touch_1_begin" ends with the finger still down.
struct Label: CustomTestStringConvertible, Sendable {
    var file: String
    var gestures: [String]
    var why: String

    var testDescription: String { file }
}

/// Default configuration. Notation: `tap COUNT/FINGERS`, `long-press FINGERS`,
/// `drag FINGERS DIRECTION` (dominant direction of the final translation, `still` under 5% of
/// the screen), `swipe DIRECTION`, `pinch out|in`, `rotate`, `... cancelled`. Press events
/// are left out except when cancelled.
let labels: [Label] = [
    Label(
        file: "MonkeyHelper-android-getevent/Phone/phone-single-touch.txt", gestures: ["tap 1/1"],
        why: "one short touch, no movement"),
    Label(
        file: "MonkeyHelper-android-getevent/Phone/phone-three-touches.txt", gestures: ["tap 1/1", "tap 1/1", "tap 1/1"],
        why: "three touches more than 300 ms and 10 mm apart: three single taps"),
    Label(
        file: "MonkeyHelper-android-getevent/Phone/phone-single-drag.txt", gestures: ["drag 1 right"],
        why: "one finger moves left to right across 38% of the screen, slowing before lift"),
    Label(
        file: "MonkeyHelper-android-getevent/Tablet/tablet-single-touch.txt", gestures: ["tap 1/1"],
        why: "one short touch"),
    Label(
        file: "MonkeyHelper-android-getevent/Tablet/tablet-three-touches.txt", gestures: ["tap 1/1", "tap 1/1", "tap 1/1"],
        why: "three separate touches"),
    Label(
        file: "MonkeyHelper-android-getevent/Tablet/tablet-openCalender-drag-tap-tap.txt",
        gestures: ["drag 1 right", "tap 1/1", "tap 1/1"],
        why: "a drag, then two taps far apart in place"),
    Label(
        file: "chromiumos-autotest-firmware_TouchMTB/data/one_finger_long_hold.dat", gestures: ["long-press 1"],
        why: "one finger held still for seconds"),
    Label(
        file: "chromiumos-autotest-firmware_TouchMTB/data/two_finger_long_hold.dat", gestures: ["long-press 2"],
        why: "two fingers held still together"),
    Label(
        file: "chromiumos-autotest-firmware_TouchMTB/data/pinch_to_zoom.zoom_in.dat", gestures: ["pinch out", "drag 2 still"],
        why: "two fingers spread to 3.5x; their centroid drifts a few mm, a small simultaneous drag"),
    Label(
        file: "chromiumos-autotest-firmware_TouchMTB/data/2f_clicks.dat", gestures: ["tap 1/2"],
        why: "two fingers down and up together"),
    Label(
        file: "chromiumos-autotest-firmware_TouchMTB/data/one_finger_swipe.dat", gestures: ["drag 1 down-left", "swipe left"],
        why:
            "a fast diagonal flick down and to the left; in millimetres (the pad is wider than tall) the leftward part dominates, so the swipe is left"
    ),
    Label(
        file: "evemu-devices/touchpads/CyPS2 Cypress Trackpad.three_finger_tap.events", gestures: ["tap 1/3"],
        why: "three fingers tap together"),
    Label(
        file: "evemu-devices/touchpads/CyPS2 Cypress Trackpad.two_finger_tap.events", gestures: ["tap 1/2"],
        why: "two fingers tap together"),
    Label(
        file: "evemu-devices/touchpads/AlpsPS2 ALPS GlidePoint.double-tap.events", gestures: ["tap 1/1", "tap 2/1"],
        why: "two quick taps on the same spot (touchpad without resolution: libinput's size fallback)"),
    Label(
        file: "evemu-devices/touchpads/AlpsPS2-ALPS-DualPoint-TouchPad-non-MT.tap.events", gestures: ["tap 1/1"],
        why: "single-touch touchpad, one tap"),
    Label(
        file: "evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events", gestures: ["tap 1/2"],
        why: "two-finger tap"),
    Label(
        file: "evemu-devices/tablets/Wacom ISDv4 E6 Finger.single-tap-center.events", gestures: ["tap 1/1"],
        why: "one tap in the centre"),
    Label(
        file: "evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events",
        gestures: ["tap 1/1", "tap 2/1", "tap 3/1", "tap 1/1", "tap 2/1", "tap 3/1", "tap 1/1", "tap 2/1", "tap 3/1"],
        why: "nine quick taps ~140 ms apart on one spot: counts run to the maximum of 3 and start again"),
    Label(
        file: "evemu-devices/touchscreens/N-Trig MultiTouch.1-finger-drag-NW-SE.events", gestures: ["drag 1 down-right"],
        why: "protocol A: one finger from the top-left corner to the bottom-right"),
    Label(
        file: "evemu-devices/touchscreens/EP0430M09.4-finger-drag-down.events", gestures: ["drag 4 up"],
        why: "four fingers move together; the panel's y axis is inverted, so the screen sees them go up"),
    Label(
        file: "xorg-integration-tests/tablets/N-Trig-MultiTouch.touch_1_begin.events", gestures: ["press cancelled"],
        why: "the recording ends with the finger down: the press is cancelled, not left open"),
    Label(
        file: "xorg-integration-tests/touchpads/SynPS2-Synaptics-TouchPad-tap.events", gestures: ["tap 1/1"],
        why: "single-touch Synaptics: the finger hovers (BTN_TOOL_FINGER) before BTN_TOUCH, then taps"),
    Label(
        file: "evemu-data/wetab.event",
        gestures: [
            "tap 1/1", "tap 1/1", "tap 1/1", "tap 1/1", "tap 1/1", "tap 1/1", "tap 2/1", "tap 3/1", "tap 1/1", "tap 1/1", "tap 2/1",
        ],
        why: "eleven taps: six apart, a triple tap, one alone, then a double tap"),
]

@Suite("Hand-labelled corpus recordings", .enabled(if: Corpus.isAvailable, "corpus not found: set GESTURED_CORPUS"))
struct LabelledCorpusTests {
    @Test(arguments: labels)
    func recognizesWhatAPersonSees(_ label: Label) throws {
        let recording = try #require(try RecordingReader.read(path: Corpus.path(label.file)).first)
        let events = Replayer(configuration: Configuration()).gestures(of: recording)
        #expect(GestureSummary.of(events) == label.gestures, "\(label.why)")
    }
}

/// Real hands lift their fingers one after the other: a multi-finger drag ends with every
/// finger that lifted together at its end (within the tap's finger window), and a finger
/// whose tracking id changes mid-stroke is no second finger.
@Test(
    "a multi-finger drag ends with every finger, however staggered its lifts",
    .enabled(if: Corpus.isAvailable, "corpus not found: set GESTURED_CORPUS"),
    arguments: [
        ("evemu-devices/touchscreens/EP0430M09.4-finger-drag-down.events", [4]),
        ("evemu-devices/touchscreens/Atmel maXTouch Touchscreen.4-finger-drag-down.events", [4]),
        ("MonkeyHelper-android-getevent/Phone/phone-two-finger-drag.txt", [2]),
        ("evemu-devices/touchscreens/EP0430M09.2-finger-scroll-down.events", [2]),
        ("MonkeyHelper-android-getevent/Phone/galaxys-paint.txt", Array(repeating: 1, count: 19)),
    ])
func multiFingerDragsEndWithEveryFinger(file: String, fingers: [Int]) throws {
    let recording = try #require(try RecordingReader.read(path: Corpus.path(file)).first)
    let events = Replayer(configuration: Configuration()).gestures(of: recording)
    let ended = events.filter { $0.kind == .drag && $0.phase == .ended }.map(\.fingers)
    #expect(ended == fingers)
    #expect(events.filter { $0.kind == .pinch || $0.kind == .rotate }.isEmpty, "a drag is no pinch or rotation")
}

/// The bundled demo recording (demo/demo.events, made by demo/make-demo.py) shows one of
/// each gesture: what the daemon's demo mode promises a newcomer.
@Test func demoRecordingShowsEveryGesture() throws {
    let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("demo/demo.events").path
    let recording = try #require(try RecordingReader.read(path: demo).first)
    let events = Replayer(configuration: Configuration()).gestures(of: recording)
    #expect(
        GestureSummary.of(events) == [
            "tap 1/1", "tap 1/1", "tap 2/1", "long-press 1", "drag 1 right", "drag 1 left", "swipe left@right", "tap 1/2", "pinch out",
        ])
}

/// The label notation: `tap COUNT/FINGERS`, `long-press FINGERS`, `drag FINGERS DIRECTION`,
/// `swipe DIRECTION[@EDGE]`, `pinch out|in`, `rotate`, `KIND cancelled`.
enum GestureSummary {
    static func of(_ events: [GestureEvent]) -> [String] {
        var result: [String] = []
        var dragFingers: [UInt64: Int] = [:]
        for event in events {
            switch (event.kind, event.phase, event.details) {
            case (.tap, _, .tap(let count)):
                result.append("tap \(count)/\(event.fingers)")
            case (.longPress, .began, _):
                result.append("long-press \(event.fingers)")
            case (.drag, .began, _):
                dragFingers[event.id] = event.fingers
            case (.drag, .ended, .drag(let values)):
                result.append("drag \(dragFingers[event.id] ?? 0) \(direction(values.translation))")
            case (.swipe, _, .swipe(let direction, let edge, _)):
                result.append("swipe \(direction.rawValue)" + (edge.map { "@\($0.rawValue)" } ?? ""))
            case (.pinch, .ended, .pinch(let scale, _)):
                result.append(scale > 1 ? "pinch out" : "pinch in")
            case (.rotate, .ended, _):
                result.append("rotate")
            case (_, .cancelled, _):
                result.append("\(event.kind.rawValue) cancelled")
            default:
                break
            }
        }
        return result
    }

    private static func direction(_ translation: Point) -> String {
        let threshold = 0.05
        let horizontal = translation.x > threshold ? "right" : translation.x < -threshold ? "left" : nil
        let vertical = translation.y > threshold ? "down" : translation.y < -threshold ? "up" : nil
        switch (vertical, horizontal) {
        case (nil, nil): return "still"
        case (let v?, nil): return v
        case (nil, let h?): return h
        case (let v?, let h?):
            // Diagonal only when neither axis dominates by more than 2:1.
            let ratio = abs(translation.x) / max(abs(translation.y), 1e-9)
            if ratio > 2 { return h }
            if ratio < 0.5 { return v }
            return "\(v)-\(h)"
        }
    }
}
