import Foundation
import GestureCore
import Recordings
import Testing

/// Checks that each recording's events fit the description it got: a wrong sibling or
/// touchpad choice shows up as codes the device does not have.
@Suite("Corpus descriptions fit their events", .enabled(if: Corpus.isAvailable, "corpus not found: set GESTURED_CORPUS"))
struct DescriptionFitTests {
    /// Known mismatches in the data itself (read by hand), so that any other is a failure.
    static let knownUndescribedCodes: [String: Set<String>] = [
        // Header-less; link is the only touchpad that fits but lacks these two axes.
        "chromiumos-autotest-firmware_TouchMTB/data/one_finger_long_hold.dat": ["ABS_TOOL_WIDTH", "ABS_MT_TOUCH_MINOR"],
        // The .desc comes from a kernel that did not yet report axis 0x1d.
        "evemu-devices/touchscreens/ELAN CANDO Windows7.1-finger-drag-up-down.events": ["3/29"],
        // xorg-integration-tests' N-Trig .desc lacks BTN_TOOL_DOUBLETAP that the events send.
        "xorg-integration-tests/tablets/N-Trig-MultiTouch.touch_1_begin.events": ["BTN_TOOL_DOUBLETAP"],
        "xorg-integration-tests/tablets/N-Trig-MultiTouch.touch_1_end.events": ["BTN_TOOL_DOUBLETAP"],
        "xorg-integration-tests/tablets/N-Trig-MultiTouch.touch_1_update.events": ["BTN_TOOL_DOUBLETAP"],
    ]

    @Test("every event code (SYN aside) is one the device describes", arguments: Corpus.files(of: .recording))
    func codesDescribed(_ relative: String) throws {
        for recording in try RecordingReader.read(path: Corpus.path(relative)) {
            var undescribed: Set<String> = []
            for event in recording.events where event.type != EV.syn && !recording.device.has(event.type, event.code) {
                undescribed.insert(EventCodeNames.name(type: event.type, code: event.code) ?? "\(event.type)/\(event.code)")
            }
            #expect(undescribed == Self.knownUndescribedCodes[relative] ?? [])
        }
    }
}
