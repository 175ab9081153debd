import Glibc
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import WebBridge

@Suite("AcceptPause: a listener out of descriptors stops reading for a second, on a virtual clock")
struct AcceptPauseTests {
    private static func limits() -> BridgeLimits {
        BridgeLimits(maximumConnections: 8, maximumDaemonConnections: 4, memoryLimit: 1 << 20, logger: Logger(label: "test"))
    }

    private func listener(_ limits: BridgeLimits) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(AcceptPause(limits: limits))
        return channel
    }

    /// The last `autoRead` the handler set on the listener (nil: never set).
    private func autoRead(_ channel: EmbeddedChannel) -> Bool? {
        channel.options.last { $0.option is ChannelOptions.Types.AutoReadOption }?.value as? Bool
    }

    @Test("EMFILE, ENFILE, ENOBUFS and ENOMEM pause the listener for a second; each failure is counted, the pause is not stacked")
    func pausesOnExhaustion() throws {
        for code in [EMFILE, ENFILE, ENOBUFS, ENOMEM] {
            let limits = Self.limits()
            let channel = try listener(limits)
            channel.pipeline.fireErrorCaught(IOError(errnoCode: code, reason: "accept"))
            #expect(autoRead(channel) == false, "errno \(code)")
            #expect(limits.refusals[.descriptors] == 1)
            try channel.throwIfErrorCaught()  // handled, not passed on

            channel.embeddedEventLoop.advanceTime(by: .milliseconds(600))
            channel.pipeline.fireErrorCaught(IOError(errnoCode: code, reason: "accept"))  // while paused
            #expect(limits.refusals[.descriptors] == 2)
            channel.embeddedEventLoop.advanceTime(by: .milliseconds(399))
            #expect(autoRead(channel) == false)
            channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
            #expect(autoRead(channel) == true)  // one second after the first failure, not the second

            // Exhausted again: a new pause.
            channel.pipeline.fireErrorCaught(IOError(errnoCode: code, reason: "accept"))
            #expect(autoRead(channel) == false)
            channel.embeddedEventLoop.advanceTime(by: AcceptPause.pause)
            #expect(autoRead(channel) == true)
        }
    }

    @Test("other errors are passed on and do not pause the listener")
    func passesOtherErrorsOn() throws {
        let limits = Self.limits()
        let channel = try listener(limits)
        channel.pipeline.fireErrorCaught(IOError(errnoCode: ECONNABORTED, reason: "accept"))
        #expect(throws: IOError.self) { try channel.throwIfErrorCaught() }
        channel.pipeline.fireErrorCaught(ChannelError.ioOnClosedChannel)
        #expect(throws: ChannelError.ioOnClosedChannel) { try channel.throwIfErrorCaught() }
        #expect(autoRead(channel) == nil)
        #expect(limits.refusals[.descriptors] == nil)
    }
}
