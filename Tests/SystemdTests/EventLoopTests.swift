import GestureProtocol
import Glibc
import SystemCalls
import SystemPackage
import Testing

@testable import Systemd

/// The loop's dispatch order and its edge cases (`EventLoop`'s doc comment), on real pipes
/// and a real sd-event, turned by `runOnce` (no waiting). Timers are armed in the past or an
/// hour ahead, never a moment ahead, so no verdict depends on how fast the machine is (the
/// one timer that runs `run` checks only that it never fires early).
@Suite struct EventLoopTests {
    /// A pipe with a byte in it: its read end is ready until drained.
    final class ReadyPipe {
        let ends: (readEnd: FileDescriptor, writeEnd: FileDescriptor)

        init() throws {
            ends = try FileDescriptor.pipe(options: [.closeOnExec])
            try fill()
        }

        func fill() throws {
            _ = try ends.writeEnd.writeAll([UInt8(1)])
        }

        /// Reads the byte, as a handler reads what is ready: the pipe is no longer ready.
        func drain() {
            var byte = [UInt8](repeating: 0, count: 1)
            _ = try? byte.withUnsafeMutableBytes { try ends.readEnd.read(into: $0) }
        }

        deinit {
            try? ends.readEnd.close()
            try? ends.writeEnd.close()
        }
    }

    private static let readable: IOEvents = .readable
    private static let hour = TimeSpan.seconds(3_600)

    @Test func oneSourceIsDispatchedPerIteration() throws {
        let loop = try EventLoop()
        let (a, b) = (try ReadyPipe(), try ReadyPipe())
        var seen: [String] = []
        let watches = [
            try loop.watch(a.ends.readEnd, events: Self.readable) { _ in seen.append("a") },
            try loop.watch(b.ends.readEnd, events: Self.readable) { _ in seen.append("b") },
        ]
        #expect(loop.runOnce())
        #expect(seen.count == 1)
        #expect(loop.runOnce())
        #expect(Set(seen) == ["a", "b"], "the second ready source comes at the next iteration")
        withExtendedLifetime(watches) {}
    }

    /// Due timers come by deadline, whatever order they were armed in, after the input that
    /// the same wait found ready (input queued before a deadline is read first); the
    /// handler gets the deadline it was armed for. The input's handler reads it, as every
    /// handler does: sd-event looks for ready descriptors again before each dispatch, so a
    /// descriptor left ready is input found by a later wait too.
    @Test func readyInputThenTimersByDeadline() throws {
        let loop = try EventLoop()
        let input = try ReadyPipe()
        var seen: [String] = []
        let base = loop.now - .microseconds(10_000)
        let timers = try [3, 1, 2].map { offset in
            let timer = try loop.timer { deadline in seen.append("timer \((deadline - base).microseconds)") }
            try timer.schedule(at: base + .microseconds(UInt64(offset)))
            return timer
        }
        let watch = try loop.watch(input.ends.readEnd, events: Self.readable) { _ in
            seen.append("input")
            input.drain()
        }
        for _ in 0..<4 { #expect(loop.runOnce()) }
        #expect(seen == ["input", "timer 1", "timer 2", "timer 3"])
        #expect(timers.allSatisfy { $0.deadline == nil }, "one-shot: fired timers are disarmed")
        withExtendedLifetime(watch) {}
    }

    @Test func aTimerNotDueYetDoesNotFire() throws {
        let loop = try EventLoop()
        var fired = 0
        let timer = try loop.timer { _ in fired += 1 }
        try timer.schedule(at: loop.now + Self.hour)
        for _ in 0..<3 { #expect(!loop.runOnce(), "nothing due") }
        #expect(fired == 0)
        #expect(timer.deadline != nil)
        // Re-armed into the past, it fires at the next iteration, once.
        try timer.schedule(at: loop.now - .microseconds(1))
        #expect(loop.runOnce())
        for _ in 0..<2 { #expect(!loop.runOnce(), "fired once") }
        #expect(fired == 1)
    }

    /// A timer pending in this iteration but re-armed later, or disarmed, by a handler before
    /// its turn does not fire; nor does a watch or timer cancelled or released meanwhile.
    @Test func whatAHandlerChangesBeforeItsTurnIsNotDispatched() throws {
        let loop = try EventLoop()
        let (first, second, third) = (try ReadyPipe(), try ReadyPipe(), try ReadyPipe())
        var seen: [String] = []
        let later: LoopTimer? = try loop.timer { _ in seen.append("re-armed later") }
        let disarmed: LoopTimer? = try loop.timer { _ in seen.append("disarmed") }
        var released: LoopTimer? = try loop.timer { _ in seen.append("released") }
        for timer in [later, disarmed, released] { try timer?.schedule(at: loop.now - .microseconds(1)) }
        var cancelled: IOWatch?
        var dropped: IOWatch?
        // Whichever of the three watches the kernel reports first changes all the others.
        var changed = false
        func change() throws {
            guard !changed else { return }
            changed = true
            try later?.schedule(at: loop.now + Self.hour)
            try disarmed?.schedule(at: nil)
            released = nil
            cancelled?.cancel()
            dropped = nil
        }
        let keeper = try loop.watch(first.ends.readEnd, events: Self.readable) { _ in
            seen.append("keeper")
            try? change()
        }
        cancelled = try loop.watch(second.ends.readEnd, events: Self.readable) { _ in
            seen.append("cancelled")
            try? change()
        }
        dropped = try loop.watch(third.ends.readEnd, events: Self.readable) { _ in
            seen.append("dropped")
            try? change()
        }
        for _ in 0..<6 { _ = loop.runOnce() }  // what matters is what was dispatched
        #expect(seen.count >= 1)
        let survivors = Set(seen.dropFirst())
        #expect(survivors.isSubset(of: ["keeper"]), "\(seen)")
        #expect(!seen.contains("disarmed") && !seen.contains("released") && !seen.contains("re-armed later"))
        #expect(released == nil && dropped == nil)
        withExtendedLifetime((keeper, later, disarmed)) {}
    }

    /// A handler may cancel its own watch; it is not dispatched again though its descriptor
    /// stays ready.
    @Test func aWatchCancelledFromItsOwnHandler() throws {
        let loop = try EventLoop()
        let pipe = try ReadyPipe()
        var calls = 0
        var watch: IOWatch?
        watch = try loop.watch(pipe.ends.readEnd, events: Self.readable) { _ in
            calls += 1
            watch?.cancel()
        }
        #expect(loop.runOnce())
        for _ in 0..<2 { #expect(!loop.runOnce(), "nothing left to dispatch") }
        #expect(calls == 1)
    }

    /// A deferred task runs right after the dispatch that scheduled it, before the next
    /// source; one scheduled from itself runs after the next dispatch, not in a loop of its
    /// own (so it cannot starve the loop); scheduling twice runs it once.
    @Test func deferredTasksRunAfterTheDispatchThatScheduledThem() throws {
        let loop = try EventLoop()
        let (a, b) = (try ReadyPipe(), try ReadyPipe())
        var seen: [String] = []
        var again = true
        var task: DeferredTask?
        task = try loop.deferredTask {
            seen.append("task")
            if again {
                again = false
                try? task?.schedule()
            }
        }
        var first: String?
        func handler(_ name: String) -> (IOEvents) -> Void {
            { _ in
                seen.append(name)
                if first == nil {
                    first = name
                    try? task?.schedule()
                    try? task?.schedule()
                }
            }
        }
        let watches = [
            try loop.watch(a.ends.readEnd, events: Self.readable, handler: handler("a")),
            try loop.watch(b.ends.readEnd, events: Self.readable, handler: handler("b")),
        ]
        #expect(loop.runOnce())
        #expect(seen.count == 2 && seen.last == "task", "\(seen)")
        #expect(loop.runOnce())
        #expect(seen.count == 4 && seen.last == "task", "the re-scheduled task after the second dispatch: \(seen)")
        #expect(Set(seen) == ["a", "b", "task"])
        withExtendedLifetime(watches) {}
    }

    /// `exit` ends `run` after the current dispatch: the deferred task it scheduled and the
    /// other ready source are not dispatched.
    @Test func exitEndsRunAfterTheCurrentDispatch() throws {
        let loop = try EventLoop()
        let (a, b) = (try ReadyPipe(), try ReadyPipe())
        var seen: [String] = []
        let task = try loop.deferredTask { seen.append("task") }
        let handler: (IOEvents) -> Void = { _ in
            seen.append("source")
            try? task.schedule()
            loop.exit(code: 7)
        }
        let watches = [
            try loop.watch(a.ends.readEnd, events: Self.readable, handler: handler),
            try loop.watch(b.ends.readEnd, events: Self.readable, handler: handler),
        ]
        #expect(try loop.run() == 7)
        #expect(seen == ["source"])
        #expect(!loop.runOnce(), "an exited loop dispatches nothing more")
        withExtendedLifetime(watches) {}
    }

    /// Disabled, a ready descriptor is not dispatched (nor a dispatch pending from before);
    /// enabled again, it is. `setEvents` to events not ready stops its dispatches too.
    @Test func disablingAndChangingEvents() throws {
        let loop = try EventLoop()
        let pipe = try ReadyPipe()
        var calls = 0
        let watch = try loop.watch(pipe.ends.readEnd, events: Self.readable) { _ in calls += 1 }
        try watch.setEnabled(false)
        for _ in 0..<2 { #expect(!loop.runOnce()) }
        #expect(calls == 0)
        try watch.setEnabled(true)
        #expect(loop.runOnce())
        #expect(calls == 1)
        try watch.setEvents(.writable)  // a read end is never writable
        for _ in 0..<2 { #expect(!loop.runOnce()) }
        #expect(calls == 1)
        try watch.setEvents(Self.readable)
        #expect(loop.runOnce())
        #expect(calls == 2)
    }

    /// A descriptor closed without cancelling its watch, its number then reused for a new
    /// watch: cancelling the stale watch must not take the new one's registration away.
    /// Fails without the loop's `registered` (the stale IO source turned off before the new
    /// one is added): sd-event removes an IO source from epoll by number, whatever the number
    /// names by then, and the new watch was never dispatched again.
    @Test func aStaleWatchDoesNotUnwatchAReusedDescriptorNumber() throws {
        let loop = try EventLoop()
        let old = try FileDescriptor.pipe(options: [.closeOnExec])
        let new = try ReadyPipe()
        defer { try? old.writeEnd.close() }
        var stale: IOWatch? = try loop.watch(old.readEnd, events: Self.readable) { _ in Issue.record("the stale watch ran") }
        // The old read end's number now names the new pipe's read end (the old one is closed).
        let reused = try new.ends.readEnd.duplicate(as: old.readEnd)
        defer { try? reused.close() }
        var calls = 0
        let fresh = try loop.watch(reused, events: Self.readable) { _ in calls += 1 }
        stale = nil
        for _ in 0..<2 { #expect(loop.runOnce()) }
        #expect(calls == 2, "still watched after the stale watch went")
        withExtendedLifetime((stale, fresh)) {}
    }

    /// Input that stays ready (a client that never stops writing) cannot hold a due timer
    /// back: the timer steps aside for pending input once, then fires.
    @Test func inputAlwaysReadyDoesNotStarveATimer() throws {
        let loop = try EventLoop()
        let input = try ReadyPipe()  // never drained: ready at every wait
        var seen: [String] = []
        let watch = try loop.watch(input.ends.readEnd, events: Self.readable) { _ in seen.append("input") }
        let timer = try loop.timer { _ in seen.append("timer") }
        try timer.schedule(at: loop.now - .microseconds(1))
        for _ in 0..<3 { #expect(loop.runOnce()) }
        #expect(seen.first == "input", "input found by the wait that found the timer due comes first: \(seen)")
        #expect(seen.contains("timer"), "\(seen)")
        withExtendedLifetime(watch) {}
    }

    /// `run` waits for a timer on the monotonic clock and fires it at or after its deadline,
    /// never before (sd-event's accuracy is set to 1 µs, not its default 250 ms of slack).
    @Test func aTimerNeverFiresBeforeItsDeadline() throws {
        let loop = try EventLoop()
        let deadline = loop.now + .milliseconds(20)
        var firedAt: (clock: UInt64, loop: Timestamp, armed: Timestamp)?
        let timer = try loop.timer { armed in
            firedAt = (monotonicMicroseconds(), loop.now, armed)
            loop.exit(code: 3)
        }
        try timer.schedule(at: deadline)
        #expect(try loop.run() == 3)
        let fired = try #require(firedAt)
        #expect(fired.armed == deadline)
        #expect(fired.loop >= deadline && fired.clock >= deadline.microseconds, "\(fired) for \(deadline)")
    }
}
