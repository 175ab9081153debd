import Actions
import Testing

/// The overlap and timeout policy on a virtual clock: `now` is whatever the test says.
@Suite struct RunSchedulerTests {
    static let event = ActionEvent(trigger: .gesture(.tap), phase: .ended, line: "")

    static func scheduler(_ overlap: Action.Overlap, timeout: Duration? = .seconds(10)) -> RunScheduler {
        RunScheduler(actions: [
            Action(line: 1, trigger: .gesture(.tap), phase: .ended, effect: .run(["x"]), timeout: timeout, overlap: overlap)
        ])
    }

    /// The run a `start` step names.
    static func started(_ steps: [RunScheduler.Step]) -> RunScheduler.RunID? {
        guard steps.count == 1, case .start(let id, action: 0, event: _) = steps[0] else { return nil }
        return id
    }

    @Test func skipDoesNothingWhileTheEarlierRunIsAlive() throws {
        var scheduler = Self.scheduler(.skip)
        let first = try #require(Self.started(scheduler.triggered(action: 0, event: Self.event, now: .zero)))
        #expect(scheduler.triggered(action: 0, event: Self.event, now: .seconds(1)) == [.skip(action: 0, alive: 1)])
        #expect(scheduler.exited(first, now: .seconds(2)) == [])
        #expect(Self.started(scheduler.triggered(action: 0, event: Self.event, now: .seconds(3))) != nil)
    }

    @Test func queueStartsTheNextWhenTheEarlierEndsAndDropsPastTheLimit() throws {
        var scheduler = Self.scheduler(.queue)
        let first = try #require(Self.started(scheduler.triggered(action: 0, event: Self.event, now: .zero)))
        for waiting in 1...RunScheduler.queueLimit {
            #expect(scheduler.triggered(action: 0, event: Self.event, now: .seconds(1)) == [.enqueue(action: 0, waiting: waiting)])
        }
        #expect(scheduler.triggered(action: 0, event: Self.event, now: .seconds(1)) == [.dropQueued(action: 0)])
        let second = try #require(Self.started(scheduler.exited(first, now: .seconds(2))))
        #expect(second != first)
        #expect(scheduler.alive(action: 0) == 1)
        #expect(scheduler.waitingCount(action: 0) == RunScheduler.queueLimit - 1)
    }

    @Test func parallelStartsBesideTheEarlierUpToTheLimit() {
        var scheduler = Self.scheduler(.parallel)
        var runs = Set<RunScheduler.RunID>()
        for _ in 0..<RunScheduler.parallelLimit {
            if let id = Self.started(scheduler.triggered(action: 0, event: Self.event, now: .zero)) { runs.insert(id) }
        }
        #expect(runs.count == RunScheduler.parallelLimit)
        #expect(scheduler.triggered(action: 0, event: Self.event, now: .zero) == [.skip(action: 0, alive: RunScheduler.parallelLimit)])
    }

    @Test func aRunPastItsTimeoutIsTerminatedThenKilled() throws {
        var scheduler = Self.scheduler(.skip, timeout: .seconds(10))
        let run = try #require(Self.started(scheduler.triggered(action: 0, event: Self.event, now: .seconds(1))))
        #expect(scheduler.nextDeadline == .seconds(11))
        #expect(scheduler.advance(to: .milliseconds(10_999)) == [])
        #expect(scheduler.advance(to: .seconds(11)) == [.terminate(run)])
        #expect(scheduler.nextDeadline == .seconds(11) + RunScheduler.killGrace)
        #expect(scheduler.advance(to: .seconds(12)) == [])
        #expect(scheduler.advance(to: .seconds(16)) == [.kill(run)])
        #expect(scheduler.nextDeadline == nil)
        #expect(scheduler.advance(to: .seconds(100)) == [])
        #expect(scheduler.exited(run, now: .seconds(16)) == [])
        #expect(scheduler.alive(action: 0) == 0)
    }

    @Test func aRunThatEndsAfterSIGTERMIsNotKilled() throws {
        var scheduler = Self.scheduler(.skip, timeout: .seconds(1))
        let run = try #require(Self.started(scheduler.triggered(action: 0, event: Self.event, now: .zero)))
        #expect(scheduler.advance(to: .seconds(1)) == [.terminate(run)])
        #expect(scheduler.exited(run, now: .seconds(2)) == [])
        #expect(scheduler.advance(to: .seconds(60)) == [])
    }

    @Test func withoutATimeoutARunIsNeverStopped() throws {
        var scheduler = Self.scheduler(.skip, timeout: nil)
        _ = try #require(Self.started(scheduler.triggered(action: 0, event: Self.event, now: .zero)))
        #expect(scheduler.nextDeadline == nil)
        #expect(scheduler.advance(to: .seconds(1_000_000)) == [])
    }

    @Test func anExitOfAnUnknownRunIsIgnored() throws {
        var scheduler = Self.scheduler(.skip)
        let run = try #require(Self.started(scheduler.triggered(action: 0, event: Self.event, now: .zero)))
        #expect(scheduler.exited(run, now: .seconds(1)) == [])
        #expect(scheduler.exited(run, now: .seconds(1)) == [.ignored("exit of run 1, which is not running")])
    }

    @Test func reconnectWaitsDoubleUpToFiveSecondsAndStartOverAfterAConnection() {
        var backoff = ReconnectBackoff()
        let delays = (0..<8).map { _ in backoff.failed() }
        #expect(
            delays == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800),
                .milliseconds(1600), .milliseconds(3200), .seconds(5), .seconds(5),
            ])
        backoff.connected()
        #expect(backoff.failed() == .milliseconds(100))
    }

    @Test func theKeyboardHoldersRestartsWaitUpToAMinute() {
        var backoff = ReconnectBackoff(first: .milliseconds(100), longest: SessionTypist.holderLongestBackoff)
        let delays = (0..<12).map { _ in backoff.failed() }
        #expect(delays.prefix(3) == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
        #expect(delays.suffix(2) == [.seconds(60), .seconds(60)])
        backoff.connected()
        #expect(backoff.failed() == .milliseconds(100))
    }
}
