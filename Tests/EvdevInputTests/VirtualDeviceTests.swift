import EvdevInput
import GestureCore
import GestureProtocol
import GestureTestSupport
import Glibc
import SystemCalls
import Testing

@Suite struct VirtualDeviceTests {
    static let hasNoUinput = access(UinputDevice.uinputPath, F_OK) != 0 && errno == ENOENT

    /// On a host without uinput (the build machines) creation must fail with a clear error,
    /// not crash. Real creation is exercised inside the VM tier.
    @Test(.enabled(if: hasNoUinput, "this host has /dev/uinput"))
    func missingUinputIsAClearError() {
        do {
            _ = try VirtualDevice(CorpusDevices.elan)
            Issue.record("created a uinput device without /dev/uinput")
        } catch {
            #expect(error.errno == .noSuchFileOrDirectory)
            #expect(error.description.hasPrefix("/dev/uinput: No such file or directory — this kernel has no uinput"))
        }
    }

    /// What the end-to-end driver writes to its virtual devices is what a real device of
    /// that kind sends: the engine's own tracker reads each protocol's frames back as the
    /// fingers that were meant, touching down, moving and lifting.
    @Test(arguments: [
        (CorpusDevices.elan, TouchProtocol.slots), (CorpusDevices.ntrig, .protocolA), (CorpusDevices.atmel, .slots),
    ])
    func framesReadBackAsTheFingersMeant(device: DeviceDescription, expected: TouchProtocol) {
        var writer = TouchFrameWriter(device)
        #expect(writer.touchProtocol == expected)
        var tracker = ContactTracker(device: device)
        var time: UInt64 = 1_000_000
        func play(_ fingers: [Int: Spot]) -> [Contact] {
            time += 10_000
            var frame: TouchFrame?
            for event in writer.frame(fingers, time: Timestamp(microseconds: time)) where tracker.feed(event) {
                frame = tracker.frame
            }
            return (frame?.contacts ?? []).sorted { $0.location.x < $1.location.x }
        }
        func expectAt(_ contacts: [Contact], _ spots: [Spot], _ phase: TouchPhase) {
            #expect(contacts.map(\.phase) == Array(repeating: phase, count: spots.count), "\(device.name): \(contacts)")
            for (contact, spot) in zip(contacts, spots) {
                #expect(
                    abs(contact.location.x - spot.x) < 0.01 && abs(contact.location.y - spot.y) < 0.01,
                    "\(device.name): \(contact.location) for \(spot)")
            }
        }
        let left = Spot(0.25, 0.5)
        let right = Spot(0.75, 0.2)
        expectAt(play([0: left, 1: right]), [left, right], .began)
        let moved = Spot(0.3, 0.6)
        expectAt(play([0: moved, 1: right]), [moved, right], .moved)
        expectAt(play([:]), [moved, right], .ended)
        #expect(writer.fingers.isEmpty)
    }
}
