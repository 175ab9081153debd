import CFuzzer
import Glibc

/// Runs libFuzzer with this process's arguments (`-runs=`, `-max_total_time=`, corpus
/// directories…), calling `body` with every input on the main thread, then exits with
/// libFuzzer's status. `body` must not keep the buffer: it is valid only during the call.
///
/// Through `LLVMFuzzerRunDriver` rather than libFuzzer's own `main`: SwiftPM gives each
/// executable its own entry point, so the harness keeps its `main` and hands over here.
public func fuzzMain(_ body: @escaping @MainActor (UnsafeRawBufferPointer) -> Void) -> Never {
    harness = body
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        // libFuzzer calls back on the thread that called it: the main thread.
        nonisolated(unsafe) let input = UnsafeRawBufferPointer(start: data, count: size)
        MainActor.assumeIsolated {
            harness?(input)
        }
        return 0
    }
    exit(status)
}

nonisolated(unsafe) private var harness: (@MainActor (UnsafeRawBufferPointer) -> Void)?
