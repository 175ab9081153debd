import GestureCore
import Testing

@Suite struct ClassificationTests {
    @Test(arguments: [
        (CorpusDevices.elan, DeviceKind.touchscreen),
        (CorpusDevices.atmel, .touchscreen),
        (CorpusDevices.ntrig, .touchscreen),
        (CorpusDevices.synaptics, .touchpad),
        (CorpusDevices.wacomFinger, .touchpad),
        (CorpusDevices.wacomPen, .tablet),
        (CorpusDevices.egalaxPen, .tablet),
        (CorpusDevices.keyboard, .other),
    ])
    func kind(_ device: DeviceDescription, _ expected: DeviceKind) {
        #expect(device.kind == expected, "\(device.name)")
    }

    @Test func directWithoutTouchOrMultitouchIsNotATouchscreen() {
        // An accelerometer-like device: direct property and ABS_X/Y, but no touch at all.
        let device = CorpusDevices.device(
            "Accelerometer", bus: 0x18, vendor: 0, product: 0, properties: [INPUTPROP.direct],
            keys: [], axes: [ABS.x: CorpusDevices.axis(-512, 512), ABS.y: CorpusDevices.axis(-512, 512)])
        #expect(device.kind == .other)
    }

    @Test func sizeComesFromTheMultitouchAxesResolution() throws {
        let size = try #require(CorpusDevices.elan.reportedPhysicalSize)
        #expect(abs(size.width - 331.2) < 1e-9)
        #expect(abs(size.height - 187.2) < 1e-9)
        #expect(CorpusDevices.elan.reportedResolution == 10)
    }

    @Test func resolutionZeroHasNoSize() {
        #expect(CorpusDevices.atmel.reportedPhysicalSize == nil)
        #expect(CorpusDevices.atmel.reportedResolution == 0)
        #expect(CorpusDevices.ntrig.reportedPhysicalSize == nil)
    }

    @Test func contactModel() {
        #expect(CorpusDevices.elan.hasSlots && CorpusDevices.elan.slotCount == 10)
        #expect(CorpusDevices.ntrig.isMultitouch && !CorpusDevices.ntrig.hasSlots)
        #expect(CorpusDevices.synaptics.slotCount == 2)
    }
}
