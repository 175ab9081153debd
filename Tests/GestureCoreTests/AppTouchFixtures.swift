import GestureCore
import GestureProtocol
import GestureTestSupport
import Testing

/// `app-fingers` and `app-long-press`: what the app (the clone's reader) gets of the touches
/// no reservation keeps. The device is 100 × 50 mm (0.1 mm a unit), so the tap's default
/// slop (3 mm) is 30 units; the long press's default duration is 500 ms.
enum AppTouchFixtures {
    static let geometry = DeviceGeometry(physicalSize: PhysicalSize(width: 100, height: 50))

    static func policy(fingers: Int? = nil, longPress: Bool? = nil, reserved: [PassThroughPolicy.ReservedArea] = []) -> PassThroughPolicy {
        PassThroughPolicy(
            reserved: reserved, geometry: geometry, app: AppTouchPolicy(device: AppTouchSettings(fingers: fingers, longPress: longPress)))
    }

    /// Tracking ids that touched down on the clone, in order.
    static func cloneIDs(_ run: PassThroughRun) -> [Int32] {
        run.output.filter { $0.type == EV.abs && $0.code == ABS.mtTrackingID && $0.value >= 0 }.map(\.value)
    }
}
