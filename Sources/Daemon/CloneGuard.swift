import EvdevInput
import GestureCore
import GestureProtocol
import Logging
import SystemCalls
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps a pass-through clone's touches from outliving a daemon run without systemd (under
/// systemd the clone's descriptor is in the service's file descriptor store instead, and
/// the restarted daemon lifts them: `StoredClones`).
///
/// A uinput device lives as long as a descriptor to it is open. When the daemon dies without
/// lifting its touches (SIGKILL, the OOM killer, a crash), the kernel removes its clone with
/// touches still down; libinput then cancels them, and Debian 12's compositors (cage 0.1.4,
/// sway 1.7) drop a touch cancel, so the kiosk app keeps a finger down forever. So each
/// clone has a guard: a small process (`gestured guard-clone`) that holds a second
/// descriptor to the clone and the read end of a pipe whose write end only the daemon holds.
/// When the daemon lets the clone go it writes `releasedMark` and closes the pipe, and the
/// guard exits without touching the clone. When the pipe ends without the mark, the daemon is
/// gone: the guard writes the clone's release frame (`PassThroughClone.releaseFrame`: every
/// touch lifted, every key up), which reaches the app as an `up` for every `down`, and exits;
/// the clone goes with its last descriptor. The daemon is never blocked by its guards.
public final class CloneGuard {
    /// The guard's pid (reaped when the guard is released).
    let pid: pid_t
    private var pipe: FileDescriptor?

    /// What the daemon writes before closing the pipe when it lets the clone go itself.
    static let releasedMark: UInt8 = UInt8(ascii: "R")
    /// The subcommand the guard runs as (`gestured guard-clone`, hidden from `--help`).
    static let subcommand = "guard-clone"
    /// The guard's descriptors: the clone's uinput, then the pipe's read end.
    static let cloneDescriptor = FileDescriptor(rawValue: 3)
    static let pipeDescriptor = FileDescriptor(rawValue: 4)

    /// Guards that were released but had not exited yet: reaped on later calls. Locked: the
    /// daemon has one thread, but every thread that releases a guard shares the list (tests
    /// run many daemons and guards at once; unlocked, two of them corrupted it).
    private static let exiting = LockedValue<[pid_t]>([])

    /// Starts the guard of `clone` (created from `description`) from the running gestured.
    /// Throws when no process can be started (the clone then works unguarded: the caller
    /// logs it).
    convenience init(clone: UinputDevice, description: DeviceDescription) throws(SystemError) {
        try self.init(
            cloneDescriptor: clone.descriptor, devnode: clone.devnode, release: PassThroughClone.releaseFrame(for: description),
            executable: "/proc/self/exe")
    }

    /// Starts `executable guard-clone` on `cloneDescriptor` (a uinput descriptor, or in
    /// tests any descriptor the frame can be written to).
    init(cloneDescriptor: FileDescriptor, devnode: String, release: [InputEvent], executable: String) throws(SystemError) {
        let ends = try Subprocess.pipe()
        defer { try? ends.read.close() }
        do {
            pid = try Subprocess.spawn(
                executable: executable,
                arguments: ["gestured", Self.subcommand, "--clone", devnode, "--release", Self.encode(release)],
                options: Self.guardOptions(cloneDescriptor, ends.read))
        } catch {
            try? ends.write.close()
            throw error
        }
        pipe = ends.write
        Self.reapExited()
    }

    /// The guard's descriptors: the clone's, then the pipe's read end (3 and 4).
    private static func guardOptions(_ clone: FileDescriptor, _ pipe: FileDescriptor) -> Subprocess.Options {
        var options = Subprocess.Options()
        options.descriptors = [clone, pipe]
        return options
    }

    /// Ends the pipe without the mark, as the daemon's death would (tests).
    func abandon() {
        try? pipe?.close()
        pipe = nil
    }

    deinit { release() }

    /// The daemon lets the clone go (lifted, or about to be destroyed): the guard exits
    /// without writing.
    func release() {
        guard let pipe else { return }
        self.pipe = nil
        _ = try? pipe.writeAll([Self.releasedMark])
        try? pipe.close()
        Self.exiting.withLock { $0.append(pid) }
        Self.reapExited()
    }

    /// Reaps the released guards that have exited (they exit at once after the mark).
    static func reapExited() {
        exiting.withLock { $0.removeAll { Subprocess.reapIfExited($0) } }
    }

    /// At the daemon's stop: waits for the released guards (they exit at once). The list is
    /// taken whole first: each guard is waited for once, and never under the lock.
    static func reapAll() {
        let released = exiting.withLock { list in
            defer { list = [] }
            return list
        }
        for pid in released { Subprocess.reap(pid) }
    }

    // MARK: The guard's side

    /// `gestured guard-clone --release FRAME`: runs as the guard on descriptors 3 (the clone)
    /// and 4 (the pipe). Returns whether it lifted the clone's touches (the daemon ended
    /// without letting the clone go); nil when `argument` is not a frame `encode` wrote.
    public static func runAsGuard(release argument: String) -> Bool? {
        guard let release = decode(argument) else { return nil }
        return run(clone: cloneDescriptor, pipe: pipeDescriptor, release: release) == .daemonGone
    }

    /// What the pipe said when it ended.
    enum Ending: Sendable, Hashable {
        /// The daemon wrote the mark: it let the clone go itself.
        case released
        /// The pipe ended without the mark: the daemon is gone.
        case daemonGone
    }

    /// The guard: waits for the pipe on `pipe` to end, then, when the daemon is gone, writes
    /// `release` to the clone on `clone`. SIGINT, SIGHUP and SIGTERM are ignored (a terminal's
    /// Ctrl-C, or a service manager stopping the group, reaches the daemon too, which lifts
    /// its touches itself); only the pipe ends the guard.
    static func run(clone: FileDescriptor, pipe: FileDescriptor, release: [InputEvent]) -> Ending {
        Subprocess.ignore(signals: [SIGINT, SIGHUP, SIGTERM])
        let ending = wait(pipe)
        if ending == .daemonGone { _ = try? UinputDevice.write(release, to: clone) }
        return ending
    }

    /// Reads `pipe` to its end.
    static func wait(_ pipe: FileDescriptor) -> Ending {
        var marked = false
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { bytes throws(SystemError) in
                    try SystemCall.adopting("read") { try pipe.read(into: bytes) }
                }
            } catch {
                return marked ? .released : .daemonGone
            }
            if count == 0 { return marked ? .released : .daemonGone }
            if buffer[..<count].contains(releasedMark) { marked = true }
        }
    }

    /// A frame as the guard's `--release` argument: `type:code:value` per event, by commas.
    static func encode(_ events: [InputEvent]) -> String {
        events.map { "\($0.type):\($0.code):\($0.value)" }.joined(separator: ",")
    }

    /// The frame of a `--release` argument; nil when it is not one `encode` writes.
    static func decode(_ text: String) -> [InputEvent]? {
        var events: [InputEvent] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let fields = item.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 3, let type = UInt16(fields[0]), let code = UInt16(fields[1]), let value = Int32(fields[2]) else {
                return nil
            }
            events.append(InputEvent(time: .zero, type: type, code: code, value: value))
        }
        guard let last = events.last, last.type == EV.syn, last.code == SYN.report else { return nil }
        return events
    }
}
