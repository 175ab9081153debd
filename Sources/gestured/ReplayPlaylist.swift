import Daemon
import GestureProtocol
import Logging
import Recordings

/// Plays recordings one after another through `ReplaySource`s (`gestured run --replay`):
/// each is announced as a device when it starts and removed when it ends; with `loops`, a
/// single recording loops seamlessly and several start over from the first.
final class ReplayPlaylist {
    private let daemon: Daemon
    private let recordings: [Recording]
    private let speed: Double
    private let loops: Bool
    private var logger: Logger
    private var next = 0
    private var current: ReplaySource?
    /// Called once the last recording has been played (never with `loops`).
    var finished: (() -> Void)?

    init(daemon: Daemon, recordings: [Recording], speed: Double, loops: Bool, logger: Logger) {
        self.daemon = daemon
        self.recordings = recordings
        self.speed = speed
        self.loops = loops
        self.logger = logger
        daemon.observe { [unowned self] change in
            guard case .sourceRemoved(let source) = change, source === current else { return }
            current = nil
            playNext()
        }
    }

    /// Starts the first recording.
    func start() {
        playNext()
    }

    private func playNext() {
        guard !daemon.isStopping else { return }
        if next == recordings.count {
            guard loops, recordings.count > 1 else {
                logger.info("replay finished")
                finished?()
                return
            }
            next = 0
        }
        let recording = recordings[next]
        next += 1
        let source = ReplaySource(
            description: recording.device, events: recording.events, path: recording.path,
            configuration: daemon.configuration, speed: speed, loops: loops && recordings.count == 1,
            now: daemon.loop.now)
        current = source
        do {
            try daemon.add(source)
        } catch {
            logger.error("cannot replay", metadata: ["recording": "\(recording.path)", "error": "\(error)"])
        }
    }
}
