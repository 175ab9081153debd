import EvdevInput
import GestureCore
import GestureTestSupport
import SystemCalls

/// The node of `panel`'s pass-through clone: the device whose `phys` names the panel's node
/// as its original (the clone keeps the panel's name). Reads `client` (and `subscriber`)
/// while it waits.
func cloneNodeOf(_ panel: TouchPanel, timeout: Double = 15, pumping client: some KioskClient, alongside subscriber: Subscriber?)
    throws(CaseFailure) -> String
{
    let phys = PassThroughClone.phys(cloning: panel.devnode)
    let deadline = monotonicMicroseconds() + UInt64(timeout * 1_000_000)
    while monotonicMicroseconds() < deadline {
        if case .nodes(let nodes)? = try? DeviceDiscovery.scan() {
            for node in nodes where node.path != panel.devnode {
                if (try? EvdevDevice(path: node.path).description)?.phys == phys { return node.path }
            }
        }
        client.settle(milliseconds: 50, alongside: subscriber)
    }
    throw CaseFailure("no clone of \"\(panel.name)\" appeared within \(Int(timeout)) s")
}
