import Daemon
import Foundation
import GestureCore
import GestureProtocol
import GestureTestSupport
import Glibc
import Logging
import SystemCalls
import SystemPackage

/// A device the test drives through a pipe: each byte written makes it emit `script[byte]`.
final class PipeSource: InputSource {
    let device: DeviceInfo
    let pipe: TriggerPipe
    var script: [UInt8: [GestureEvent]] = [:]
    var onStop: (() -> Void)?
    /// What `status` reports as this device's ghost series (set before the daemon starts).
    var ghosts: [GhostSeries] = []

    init(name: String) throws {
        device = DeviceInfo(name: name, kind: .touchscreen, path: "/dev/input/test-\(name)")
        pipe = try TriggerPipe()
    }

    var fileDescriptor: FileDescriptor? { pipe.readEnd }
    var nextDeadline: Timestamp? { nil }

    func trigger(_ byte: UInt8) { pipe.trigger(byte) }

    func readAvailable(now: Timestamp, into sink: inout DaemonSink) -> InputStatus {
        pipe.drain { byte in
            if byte == 0 {
                onStop?()
                return false
            }
            for event in script[byte] ?? [] {
                var event = event
                event.id = sink.nextGestureID()
                sink.emit(event)
            }
            return true
        }
        return .active
    }

    func deadlineReached(now: Timestamp, into sink: inout DaemonSink) -> InputStatus { .active }
    func close(now: Timestamp, into sink: inout DaemonSink) {}
}

/// A daemon running its loop on its own thread, on a socket in a temporary directory.
final class InProcessDaemon {
    let directory = TemporaryDirectory()
    let socketPath: String
    let control: PipeSource
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    /// Starts a daemon with `settings` and `devices` (plus a hidden control device).
    /// `idleTimeout` is off unless a test asks for it: the default (60 s of the daemon's
    /// real clock) would put an `activity` line into the stream of a test that merely runs
    /// slowly (seen under AddressSanitizer on a loaded machine), a verdict that would
    /// depend on the machine's speed. `wentIdle` becomes the daemon's `wentIdle` (called on
    /// the loop's thread).
    init(
        settings: DaemonSettings = DaemonSettings(), idleTimeout: TimeSpan = .zero, devices: [any InputSource] = [],
        wentIdle: (() -> Void)? = nil
    ) throws {
        socketPath = directory.file("gestured.sock")
        control = try PipeSource(name: "control")
        var configuration = Configuration()
        configuration.daemon = settings
        configuration.daemon.idleTimeout = idleTimeout
        configuration.daemon.socketPath = socketPath
        let listener = try UnixListener(path: socketPath, mode: 0o600, group: nil)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let daemon = try Daemon(configuration: configuration, listener: listener, version: "test", logger: logger) { configuration }
        if let wentIdle {
            daemon.observe { change in
                if case .wentIdle = change { wentIdle() }
            }
        }
        for device in devices { try daemon.add(device) }
        control.onStop = { [unowned daemon] in daemon.stop(reason: "stopping") }
        try daemon.add(control)
        let finished = finished
        nonisolated(unsafe) let running = daemon
        thread = Thread {
            _ = try? running.run(handleSignals: false)
            finished.signal()
        }
        thread?.start()
    }

    /// Stops the daemon gracefully and waits for its loop to end.
    private var stopped = false

    func stop() {
        guard !stopped else { return }
        stopped = true
        control.trigger(0)
        _ = finished.wait(timeout: .now() + .seconds(10))
    }

    deinit {
        stop()
    }
}

func tap(region: String? = nil, fingers: Int = 1) -> GestureEvent {
    GestureEvent(
        .tap(count: 1), phase: .ended, id: 0, time: 1_000_080_000, region: region, fingers: fingers,
        location: Point(x: 0.5, y: 0.5))
}

func drag(_ phase: GesturePhase) -> GestureEvent {
    GestureEvent(
        .drag(
            DragValues(
                startLocation: Point(x: 0.2, y: 0.7), translation: Point(x: 0.05, y: 0.05),
                velocity: Point(x: 1, y: 1), predictedEndLocation: Point(x: 0.3, y: 0.8),
                predictedEndTranslation: Point(x: 0.1, y: 0.1))),
        phase: phase, id: 0, time: 2_000_000, region: "panel", fingers: 1, location: Point(x: 0.25, y: 0.75),
        regionRect: Rect(x: 0, y: 0.5, width: 1, height: 0.5))
}
