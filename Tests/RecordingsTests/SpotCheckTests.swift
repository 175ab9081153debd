import GestureCore
import Recordings
import Testing

/// Values read by hand from the corpus files.
@Suite("Corpus spot checks", .enabled(if: Corpus.isAvailable, "corpus not found: set GESTURED_CORPUS"))
struct SpotCheckTests {
    @Test("ELAN Touchscreen.desc: ids, DIRECT, MT X 0…3312 at 10 units/mm")
    func elanDescription() throws {
        let device = try RecordingReader.readDevice(path: Corpus.path("evemu-devices/touchscreens/ELAN Touchscreen.desc"))
        #expect(device.name == "ELAN Touchscreen")
        #expect(device.bus == 0x3 && device.vendor == 0x4f3 && device.product == 0x10c && device.version == 0x110)
        #expect(device.properties == [INPUTPROP.direct])
        #expect(device.absInfo[ABS.mtPositionX] == AbsInfo(minimum: 0, maximum: 3312, resolution: 10))
        #expect(device.absInfo[ABS.mtPositionY] == AbsInfo(minimum: 0, maximum: 1872, resolution: 10))
        #expect(device.slotCount == 10)
        #expect(device.has(EV.key, BTN.touch))
    }

    @Test("evemu 1.1 with its own header: 3M, 60 slots, first event")
    func threeM() throws {
        let recording = try Corpus.single("evemu-data/3m.event")
        #expect(recording.format == .evemu)
        #expect(recording.notes.isEmpty)
        #expect(recording.device.slotCount == 60)
        #expect(recording.device.absInfo[ABS.mtPositionX] == AbsInfo(minimum: 0, maximum: 32767, fuzz: 15))
        #expect(recording.events.count == 43466)
        #expect(recording.events.first == InputEvent(time: 1_284_881_103_697_884, type: EV.abs, code: ABS.mtTrackingID, value: 0))
        #expect(recording.events[1] == InputEvent(time: 1_284_881_103_697_892, type: EV.abs, code: ABS.mtPositionX, value: 27024))
    }

    @Test("evemu 1.3 with trailing comments, relative times from 0.000001 s")
    func atmelDrag() throws {
        let recording = try Corpus.single("evemu-devices/touchscreens/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events")
        #expect(recording.device.absInfo[ABS.mtPositionX]?.resolution == 0)
        #expect(recording.events.first == InputEvent(time: 1, type: EV.abs, code: ABS.mtTrackingID, value: 6))
        #expect(recording.events[7] == InputEvent(time: 81454, type: EV.abs, code: ABS.mtPositionY, value: 368))
    }

    @Test(
        "sibling descriptions: dotted, spaced and longest-stem names",
        arguments: [
            ("evemu-devices/touchpads/ETPS2 Elantech Touchpad.events", "ETPS2 Elantech Touchpad.desc"),
            ("evemu-devices/tablets/Wacom Bamboo 16FG 4x5 Finger double-tap.events", "Wacom Bamboo 16FG 4x5 Finger.desc"),
            (
                "evemu-devices/touchpads/SynPS2 Synaptics TouchPad.hp8470p.edge-scroll-vertical.events",
                "SynPS2 Synaptics TouchPad.hp8470p.desc"
            ),
            ("evemu-devices/touchpads/SynPS2 Synaptics TouchPad-fdo23890.events", "SynPS2 Synaptics TouchPad-fdo23890.desc"),
            ("evemu-devices/touchpads/SynPS2 Synaptics TouchPad.leftmove.events", "SynPS2 Synaptics TouchPad.desc"),
            ("xorg-integration-tests/touchpads/SynPS2-Synaptics-TouchPad-Clickpad.tap.events", "SynPS2-Synaptics-TouchPad-Clickpad.desc"),
            ("xorg-integration-tests/touchpads/SynPS2-Synaptics-TouchPad-move.events", "SynPS2-Synaptics-TouchPad.desc"),
        ])
    func siblings(_ events: String, _ description: String) throws {
        let recording = try Corpus.single(events)
        #expect(recording.notes == ["device from sibling file \(description)"])
    }

    @Test("a .events file with its own header ignores the sibling")
    func ownHeaderWins() throws {
        let recording = try Corpus.single("evemu-devices/touchpads/ETPS2 Elantech Touchpad.Samsung-700Z3A.events")
        #expect(recording.notes.isEmpty)
        #expect(recording.device.name == "ETPS/2 Elantech Touchpad")
    }

    @Test("Elantech events: device from sibling, first event")
    func elantechEvents() throws {
        let recording = try Corpus.single("evemu-devices/touchpads/ETPS2 Elantech Touchpad.events")
        #expect(recording.device.name == "ETPS/2 Elantech Touchpad")
        #expect(recording.device.absInfo[ABS.mtPositionX]?.maximum == 1280)
        #expect(recording.events.first == InputEvent(time: 1_329_461_875_832_049, type: EV.key, code: BTN.touch, value: 1))
    }

    @Test("evtest header with a glued line: the axis after it is recovered")
    func evtestGluedHeader() throws {
        let recording = try Corpus.single("chromiumos-autotest-firmware_TouchMTB/data/1f_click.dat")
        #expect(recording.format == .evtest)
        #expect(recording.device.name == "Cypress APA Trackpad (cyapa)")
        #expect(recording.device.bus == 0x18 && recording.device.version == 1)
        #expect(recording.device.absInfo[ABS.mtPositionX] == AbsInfo(minimum: 0, maximum: 1280, resolution: 12))
        #expect(recording.device.absInfo[ABS.mtPositionY] == AbsInfo(minimum: 0, maximum: 680, resolution: 10))
        #expect(recording.device.absInfo[ABS.mtSlot]?.maximum == 14)
        #expect(recording.device.has(EV.key, 328))  // listed as "(?)"
        #expect(recording.device.has(EV.key, BTN.toolQuadTap))
        #expect(recording.notes == ["recovered a broken header line (37)"])
        #expect(recording.events.first == InputEvent(time: 5_373_390_081_542, type: EV.abs, code: ABS.mtTrackingID, value: 284))
        #expect(recording.events[9] == InputEvent(time: 5_373_390_081_582, type: EV.syn, code: SYN.report, value: 0))
    }

    @Test("evtest preamble noise before the first event is skipped")
    func evtestNoise() throws {
        let recording = try Corpus.single("chromiumos-autotest-firmware_TouchMTB/data/noise_line.dat")
        #expect(recording.events.first?.time == 1_415_224_839_863_820)
    }

    @Test(
        "header-less evtest files get a ChromiumOS touchpad",
        arguments: [
            ("center_to_right_slow_link.dat", "link"),  // named in the file name
            ("pinch_to_zoom.zoom_in.dat", "link"),  // only link has ABS_MT_TOUCH_MAJOR and fits
            ("one_finger_long_hold.dat", "link"),  // x up to 1751: too wide for lumpy
            ("2f_scroll_diagonal.dat", "alex"),  // x from 2165: only alex's range
            ("2f_clicks.dat", "lumpy"),  // fits link and lumpy: lumpy is tighter
            ("one_finger_swipe.evemu.dat", "lumpy"),  // evemu events, no sibling .desc
        ])
    func touchpadChoice(_ file: String, _ touchpad: String) throws {
        let recording = try Corpus.single("chromiumos-autotest-firmware_TouchMTB/data/" + file)
        #expect(recording.device.name == touchpad)
        #expect(recording.device.has(EV.key, BTN.touch))
        #expect(!recording.deviceInferred)
    }

    @Test("getevent: inferred device, hex values, SYN_MT_REPORT")
    func geteventSingleTouch() throws {
        let recording = try Corpus.single("MonkeyHelper-android-getevent/Phone/phone-single-touch.txt")
        #expect(recording.format == .getevent)
        #expect(recording.deviceInferred)
        #expect(recording.device.name == "phone-single-touch")
        #expect(recording.device.properties == [INPUTPROP.direct])
        #expect(recording.device.absInfo[ABS.mtPositionX] == AbsInfo(minimum: 0, maximum: 539))  // 0x213 = 531
        #expect(recording.device.absInfo[ABS.mtPositionY] == AbsInfo(minimum: 0, maximum: 767))  // 0x2f9 = 761
        #expect(recording.device.absInfo[ABS.mtPressure] == AbsInfo(minimum: 0, maximum: 63))  // 0x25 = 37
        #expect(recording.events.count == 9)
        #expect(recording.events.first == InputEvent(time: 1_193_605_705, type: EV.abs, code: ABS.mtPositionX, value: 0x213))
        #expect(recording.events[5] == InputEvent(time: 1_193_605_731, type: EV.syn, code: SYN.mtReport, value: 0))
        #expect(recording.summary.usesProtocolA)
    }

    @Test("getevent: FFFFFFFF is -1, DOWN is 1")
    func geteventSpecialValues() throws {
        let paint = try Corpus.single("MonkeyHelper-android-getevent/Phone/galaxys-paint.txt")
        #expect(paint.events.contains { $0.code == ABS.mtTrackingID && $0.value == -1 })
        #expect(paint.device.has(EV.abs, 0x28))  // ABS_MISC
        let touches = try Corpus.single("MonkeyHelper-android-getevent/Tablet/tablet-three-touches.txt")
        #expect(touches.events.contains { $0.type == EV.key && $0.code == BTN.touch && $0.value == 1 })
        #expect(touches.device.has(EV.key, BTN.touch))
    }

    @Test("--device replaces an inferred description")
    func deviceOverride() throws {
        let recordings = try RecordingReader.read(
            path: Corpus.path("MonkeyHelper-android-getevent/Phone/phone-single-touch.txt"),
            devicePath: Corpus.path("evemu-devices/touchscreens/ELAN Touchscreen.desc"))
        #expect(recordings.count == 1)
        #expect(recordings[0].device.name == "ELAN Touchscreen")
        #expect(!recordings[0].deviceInferred)
        #expect(recordings[0].notes.last == "device from \(Corpus.path("evemu-devices/touchscreens/ELAN Touchscreen.desc"))")
    }

    @Test(".touchpad files are descriptions named after the file")
    func touchpadFile() throws {
        let device = try RecordingReader.readDevice(path: Corpus.path("chromiumos-autotest-firmware_TouchMTB/device/link.touchpad"))
        #expect(device.name == "link")
        #expect(device.absInfo[ABS.mtPositionX] == AbsInfo(minimum: 0, maximum: 2039, resolution: 20))
        #expect(device.slotCount == 10)
    }

    @Test("a description-only .events file reads as a recording without events")
    func descriptionOnlyEventsFile() throws {
        let recording = try Corpus.single("evemu-devices/tablets/Wacom Cintiq 22HDT Finger.events")
        #expect(recording.events.isEmpty)
        #expect(recording.device.name == "Wacom Cintiq 22HDT Finger")
    }
}
