import Foundation
import GestureCore
import Recordings
import Testing

/// A hand-made `libinput record` file in the layout libinput-record(1) documents: two
/// devices (a touchscreen and a keyboard), comments, udev/quirks blocks and a `libinput:`
/// event frame that must be skipped.
let libinputFixture = """
    # libinput record
    version: 1
    ndevices: 2
    libinput:
      version: "1.23.0"
      git: "unknown"
    system:
      os: "debian:12"
      kernel: "6.1.0-18-amd64"
      dmi: "dmi:bvnLENOVO:bvrN1EET41W(1.15):"
    devices:
    - node: /dev/input/event6
      evdev:
        # Name: ELAN Touchscreen
        # ID: bus 0x3 vendor 0x4f3 product 0x10c version 0x110
        # Supported Events:
        # Event type 3 (EV_ABS)
        #   Event code 53 (ABS_MT_POSITION_X)
        name: "ELAN \\"Touch\\" screen"
        id: [3, 1267, 268, 272]
        codes:
          0: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] # EV_SYN
          1: [330] # EV_KEY
          3: [0, 1, 47, 53, 54, 57] # EV_ABS
        absinfo:
          0: [0, 3312, 0, 0, 10]
          1: [0, 1872, 0, 0, 10]
          47: [0, 9, 0, 0, 0]
          53: [0, 3312, 0, 0, 10]
          54: [0, 1872, 0, 0, 10]
          57: [0, 65535, 0, 0, 0]
        properties: [1]
      hid: [5, 13, 9, 4, 161, 1]
      udev:
        properties:
        - ID_INPUT=1
        - ID_INPUT_TOUCHSCREEN=1
      quirks:
      events:
      # Current time is 10:21:45
      - evdev:
        - [  0,      0,   3,  57,     29] # EV_ABS / ABS_MT_TRACKING_ID      29
        - [  0,      0,   3,  53,   1500] # EV_ABS / ABS_MT_POSITION_X     1500
        - [  0,      0,   3,  54,    800] # EV_ABS / ABS_MT_POSITION_Y      800
        - [  0,      0,   1, 330,      1] # EV_KEY / BTN_TOUCH               1
        - [  0,      0,   0,   0,      0] # ------------ SYN_REPORT (0) ---------- +0ms
      - libinput:
        - {time: 0.000000, type: TOUCH_DOWN, slot: 0, point: [45.29, 42.73]}
      - evdev:
        - [  0,   7012,   3,  53,   1502] # EV_ABS / ABS_MT_POSITION_X     1502
        - [  0,   7012,   0,   0,      0] # ------------ SYN_REPORT (0) ---------- +7ms
      - evdev:
        - [  1,  20000,   3,  57,     -1] # EV_ABS / ABS_MT_TRACKING_ID      -1
        - [  1,  20000,   1, 330,      0] # EV_KEY / BTN_TOUCH               0
        - [  1,  20000,   0,   0,      0] # ------------ SYN_REPORT (0) ---------- +1013ms
    - node: /dev/input/event3
      evdev:
        name: "AT Translated Set 2 keyboard"
        id: [17, 1, 1, 43907]
        codes:
          0: [0, 1, 4, 17, 20] # EV_SYN
          1: [1, 2, 3, 4, 5] # EV_KEY
        absinfo:
        properties: []
      events:
      - evdev:
        - [  0,  50000,   1,   2,      1] # EV_KEY / KEY_1                   1
        - [  0,  50000,   0,   0,      0] # ------------ SYN_REPORT (0) ---------- +50ms

    """

@Suite("libinput record")
struct LibinputRecordTests {
    @Test("two devices give two recordings with their own events")
    func twoDevices() throws {
        let recordings = try RecordingReader.parse(text: libinputFixture, path: "fixture.yml")
        try #require(recordings.count == 2)
        let screen = recordings[0]
        #expect(screen.format == .libinputRecord)
        #expect(screen.device.name == #"ELAN "Touch" screen"#)
        #expect(screen.device.bus == 3 && screen.device.vendor == 0x4f3 && screen.device.product == 0x10c)
        #expect(screen.device.properties == [INPUTPROP.direct])
        #expect(screen.device.absInfo[ABS.mtPositionX] == AbsInfo(minimum: 0, maximum: 3312, resolution: 10))
        #expect(screen.device.slotCount == 10)
        #expect(screen.device.has(EV.key, BTN.touch))
        #expect(screen.events.count == 10)
        #expect(screen.events[5] == InputEvent(time: 7012, type: EV.abs, code: ABS.mtPositionX, value: 1502))
        #expect(screen.events[7] == InputEvent(time: 1_020_000, type: EV.abs, code: ABS.mtTrackingID, value: -1))
        let keyboard = recordings[1]
        #expect(keyboard.device.name == "AT Translated Set 2 keyboard")
        #expect(keyboard.device.absInfo.isEmpty)
        #expect(
            keyboard.events == [
                InputEvent(time: 50000, type: EV.key, code: 2, value: 1), InputEvent(time: 50000, type: EV.syn, code: SYN.report, value: 0),
            ])
    }

    @Test("a libinput record file works as --device text")
    func asDevice() throws {
        let device = try RecordingReader.parseDevice(text: libinputFixture, path: "fixture.yml")
        #expect(device.name == #"ELAN "Touch" screen"#)
    }

    @Test("a malformed event row names its line")
    func malformedRow() {
        let broken = libinputFixture.replacingOccurrences(of: "[  0,   7012,   3,  53,   1502]", with: "[  0,   7012,   3,  53]")
        #expect(
            throws: RecordingError(
                path: "fixture.yml", line: 50, message: "event row needs 5 numbers [sec, usec, type, code, value], got 4")
        ) {
            try RecordingReader.parse(text: broken, path: "fixture.yml")
        }
    }
}
