import CSystemCalls
import Glibc
import SystemPackage

/// Starting and reaping helper processes: `posix_spawn` with exactly the descriptors the
/// child is given (every other one closed in the child, close-on-exec or not: a listening
/// socket from systemd or a grabbed evdev node never leaks into it), every signal at its
/// default and none blocked.
public enum Subprocess {
    /// A pipe whose two ends are close-on-exec, each non-blocking as asked.
    public static func pipe(nonBlocking: (read: Bool, write: Bool) = (false, false)) throws(SystemError) -> (
        read: FileDescriptor, write: FileDescriptor
    ) {
        var ends: [Int32] = [-1, -1]
        try SystemCall.posixBlocking("pipe2") { gestured_pipe_cloexec(&ends) }
        for (end, wanted) in zip(ends, [nonBlocking.read, nonBlocking.write]) where wanted {
            let flags = try SystemCall.posixBlocking("fcntl") { fcntl(end, F_GETFL) }
            try SystemCall.posixBlocking("fcntl") { fcntl(end, F_SETFL, flags | O_NONBLOCK) }
        }
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    /// How a child starts, besides its program and arguments.
    public struct Options {
        /// Look the program up in `PATH` when it has no slash (`posix_spawnp`).
        public var searchPath = false
        /// `NAME=value` entries; nil: this process's environment.
        public var environment: [String]? = nil
        /// A process group of its own (so signals to the group reach what it starts too).
        public var ownProcessGroup = false
        /// Standard input from `/dev/null` rather than this process's.
        public var nullStandardInput = false
        /// Standard input from this descriptor rather than this process's (or `/dev/null`).
        public var standardInput: FileDescriptor? = nil
        /// Standard output to this descriptor rather than this process's.
        public var standardOutput: FileDescriptor? = nil
        /// Standard error to this descriptor rather than this process's.
        public var standardError: FileDescriptor? = nil
        /// `descriptors[i]` becomes the child's descriptor `3 + i`.
        public var descriptors: [FileDescriptor] = []

        public init() {}
    }

    /// Starts `executable` with `arguments` (the first is the child's `argv[0]`). Standard
    /// input, output and error are inherited unless `options` say otherwise,
    /// `options.descriptors` become 3, 4, …, and nothing else is inherited. Returns the pid.
    public static func spawn(executable: String, arguments: [String], options: Options = Options()) throws(SystemError) -> pid_t {
        // Copies above every target first, so that no dup2 source is also a target (a dup2
        // onto itself would keep close-on-exec) and no target is overwritten before use.
        let firstTarget: Int32 = 3
        let descriptors = options.descriptors
        var copies: [Int32] = []
        defer { for copy in copies { _ = Glibc.close(copy) } }
        for descriptor in descriptors {
            let minimum = firstTarget + Int32(descriptors.count)
            copies.append(try SystemCall.posixBlocking("fcntl") { fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, minimum) })
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if options.nullStandardInput && options.standardInput == nil {
            try SystemCall.returnedErrno("posix_spawn_file_actions_addopen") {
                posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
            }
        }
        for (source, target) in [
            (options.standardInput, STDIN_FILENO), (options.standardOutput, STDOUT_FILENO), (options.standardError, STDERR_FILENO),
        ] {
            guard let source else { continue }
            try SystemCall.returnedErrno("posix_spawn_file_actions_adddup2") {
                posix_spawn_file_actions_adddup2(&actions, source.rawValue, target)
            }
        }
        for (offset, copy) in copies.enumerated() {
            try SystemCall.returnedErrno("posix_spawn_file_actions_adddup2") {
                posix_spawn_file_actions_adddup2(&actions, copy, firstTarget + Int32(offset))
            }
        }
        try SystemCall.returnedErrno("posix_spawn_file_actions_addclosefrom_np") {
            gestured_spawn_close_from(&actions, firstTarget + Int32(descriptors.count))
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A clean start: no signal blocked, every signal at its default.
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if options.ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        var environment = (options.environment ?? Self.environment()).map { strdup($0) } + [nil]
        defer {
            for argument in argv { free(argument) }
            for entry in environment { free(entry) }
        }
        try SystemCall.returnedErrno(options.searchPath ? "posix_spawnp" : "posix_spawn", path: executable) {
            options.searchPath
                ? posix_spawnp(&pid, executable, &actions, &attributes, argv, &environment)
                : posix_spawn(&pid, executable, &actions, &attributes, argv, &environment)
        }
        return pid
    }

    /// This process's id.
    public static var currentID: pid_t { getpid() }

    /// Sets `FD_CLOEXEC` on `descriptor` (one inherited from a parent, as systemd passes
    /// listening sockets): a program this process spawns will not inherit it.
    public static func setCloseOnExec(_ descriptor: FileDescriptor) throws(SystemError) {
        let flags = try SystemCall.posixBlocking("fcntl") { fcntl(descriptor.rawValue, F_GETFD) }
        try SystemCall.posixBlocking("fcntl") { fcntl(descriptor.rawValue, F_SETFD, flags | FD_CLOEXEC) }
    }

    /// The running program's absolute path (`/proc/self/exe`), nil when it cannot be read.
    public static func currentExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// This process's environment as `NAME=value` entries.
    public static func environment() -> [String] {
        var entries: [String] = []
        var cursor = environ
        while let entry = cursor.pointee {
            entries.append(String(cString: entry))
            cursor += 1
        }
        return entries
    }

    /// `NAME=value` entries of `entries`, those whose name `overrides` also sets left out,
    /// then `overrides`.
    public static func environment(_ entries: [String], overriddenBy overrides: [String]) -> [String] {
        func name(_ entry: String) -> Substring { entry.prefix { $0 != "=" } }
        let replaced = Set(overrides.map(name))
        return entries.filter { !replaced.contains(name($0)) } + overrides
    }

    /// Reaps `pid` if it has exited: true when it had (or is not our child any more).
    public static func reapIfExited(_ pid: pid_t) -> Bool {
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return true }
            if result == 0 { return false }
            if Glibc.errno == EINTR { continue }
            return true  // ECHILD: reaped already, or never ours
        }
    }

    /// Waits for `pid` to exit and reaps it; returns its wait status (`WEXITSTATUS`,
    /// `WTERMSIG` read it), 0 when it was not our child or was reaped already.
    @discardableResult
    public static func reap(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard Glibc.errno == EINTR else { return 0 }
        }
        return status
    }

    /// Sends `signal` to `pid`, or to the process group `-pid` when `pid` is negative;
    /// false when there is no such process (any more) or it may not be signalled.
    @discardableResult
    public static func send(_ signal: Int32, to pid: pid_t) -> Bool {
        kill(pid, signal) == 0
    }

    /// Ignores `signals` in this process from now on (`SIG_IGN`).
    public static func ignore(signals: [Int32]) {
        for signal in signals { _ = Glibc.signal(signal, SIG_IGN) }
    }
}
