import Actions

#if canImport(Glibc)
    import Glibc
#endif

/// A command started for an action: its own process group (so a timeout's signals reach
/// what it started too), standard input `/dev/null`, standard output shared with
/// gesturectl, standard error to a pipe gesturectl reads (its first lines are logged).
struct ChildProcess {
    let pid: pid_t
    /// Read end of the child's standard error, non-blocking.
    let stderr: Int32

    /// Why a command could not be started.
    struct SpawnError: Error, CustomStringConvertible {
        let program: String
        let errno: Int32
        var description: String { "cannot run '\(program)': \(String(cString: strerror(errno)))" }
    }

    /// Starts `argv` (searched in `PATH` when it has no slash, no shell) with gesturectl's
    /// environment plus `extraEnvironment` (which replaces variables of the same name).
    static func spawn(_ argv: [String], extraEnvironment: [(name: String, value: String)]) throws(SpawnError) -> ChildProcess {
        guard let pipeEnds = makePipe(nonBlocking: [true, false]) else { throw SpawnError(program: argv[0], errno: errno) }
        defer { close(pipeEnds[1]) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDERR_FILENO)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A clean start: no signal blocked, every signal at its default (gesturectl ignores
        // SIGPIPE), and a process group of its own.
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let replaced = Set(extraEnvironment.map(\.name))
        var environment = inheritedEnvironment().filter { entry in
            !replaced.contains(String(entry.prefix { $0 != "=" }))
        }
        environment += extraEnvironment.map { "\($0.name)=\($0.value)" }

        var pid: pid_t = 0
        let result = withCStrings(argv) { argvPointers in
            withCStrings(environment) { environmentPointers in
                posix_spawnp(&pid, argv[0], &actions, &attributes, argvPointers, environmentPointers)
            }
        }
        guard result == 0 else {
            close(pipeEnds[0])
            throw SpawnError(program: argv[0], errno: result)
        }
        return ChildProcess(pid: pid, stderr: pipeEnds[0])
    }

    /// Sends `signal` to the command's process group (what it started too); a group that
    /// is already gone is not an error.
    func signal(_ signal: Int32) {
        _ = kill(-pid, signal)
    }
}

/// A pipe whose ends are close-on-exec (only the supervisor thread spawns, so no other
/// thread can leak them into a child between `pipe` and `fcntl`), each end non-blocking
/// as asked; nil with `errno` set on failure.
func makePipe(nonBlocking: [Bool]) -> [Int32]? {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return nil }
    for (end, nonBlocking) in zip(ends, nonBlocking) {
        _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        if nonBlocking {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
    }
    return ends
}

/// gesturectl's own environment as `NAME=value` strings.
private func inheritedEnvironment() -> [String] {
    var entries: [String] = []
    var cursor = environ
    while let entry = cursor.pointee {
        entries.append(String(cString: entry))
        cursor += 1
    }
    return entries
}

/// Calls `body` with a NULL-terminated array of C strings, valid during the call.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    let pointers = strings.map { strdup($0) } + [nil]
    defer {
        for pointer in pointers { free(pointer) }
    }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
