import GestureTestSupport
import Testing

@testable import EvdevInput

@Suite struct DiscoveryTests {
    @Test func missingDirectoryIsAResultNotAnError() throws {
        let tmp = TemporaryDirectory()
        #expect(try DeviceDiscovery.scan(tmp.path + "/input") == .noInputDirectory(tmp.path + "/input"))
    }

    @Test func listsEventNodesByNumberWithTheirLinks() throws {
        let tmp = TemporaryDirectory()
        tmp.createDirectory("input")
        for name in ["event10", "event2", "event0", "mouse0", "mice", "event", "eventx", "event1a"] {
            tmp.createFile("input/" + name)
        }
        tmp.createDirectory("input/by-id")
        tmp.createDirectory("input/by-path")
        tmp.createLink("input/by-id/usb-ELAN_Touchscreen-event-if00", to: "../event2")
        tmp.createLink("input/by-path/pci-0000:00:14.0-usb-0:7:1.0-event", to: "../event2")
        tmp.createLink("input/by-path/pci-0000:00:14.0-usb-0:7:1.0-mouse", to: "../mouse0")
        tmp.createLink("input/by-id/dangling-event", to: "../event99")
        let input = tmp.path + "/input"
        guard case .nodes(let nodes) = try DeviceDiscovery.scan(input) else {
            Issue.record("no nodes")
            return
        }
        #expect(nodes.map(\.number) == [0, 2, 10])
        #expect(nodes.map(\.path) == [input + "/event0", input + "/event2", input + "/event10"])
        #expect(
            nodes[1].links == [
                input + "/by-id/usb-ELAN_Touchscreen-event-if00",
                input + "/by-path/pci-0000:00:14.0-usb-0:7:1.0-event",
            ])
        #expect(nodes[0].links.isEmpty && nodes[2].links.isEmpty)
        #expect(nodes[1].allPaths.first == input + "/event2")
    }

    @Test(
        arguments: [
            ("event0", 0), ("event17", 17), ("event", nil), ("event-1", nil), ("event٣", nil),
            ("mouse0", nil), ("event1234567890", nil), ("xevent1", nil),
        ] as [(String, Int?)])
    func eventNumber(_ name: String, _ expected: Int?) {
        #expect(DeviceDiscovery.eventNumber(name) == expected)
    }

    @Test func unopenableNodeIsReportedNotFatal() {
        let tmp = TemporaryDirectory()
        tmp.createFile("event0")
        let report = DeviceReport.probe(DeviceNode(path: tmp.path + "/event0", number: 0), configuration: .init())
        guard case .cannotOpen(let error) = report.decision else {
            Issue.record("expected cannotOpen, got \(report.decision)")
            return
        }
        #expect(error.call == "libevdev_new_from_fd")
    }
}
