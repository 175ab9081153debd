import CSystemCalls
import Glibc
import SystemPackage

/// Starting and reaping helper processes: `posix_spawn` with exactly the descriptors the
/// child is given (every other one closed in the child, close-on-exec or not: a listening
/// socket from systemd or a grabbed evdev node never leaks into it), every signal at its
/// default and none blocked.
public enum Subprocess {
    /// A pipe whose two ends are close-on-exec.
    public static func pipe() throws(SystemError) -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        try SystemCall.posixBlocking("pipe2") { gestured_pipe_cloexec(&ends) }
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    /// Starts `executable` with `arguments` (the first is the child's `argv[0]`) and this
    /// process's environment. `descriptors[i]` becomes the child's descriptor `3 + i`;
    /// standard input, output and error are inherited; nothing else is. Returns the pid.
    public static func spawn(
        executable: String, arguments: [String], descriptors: [FileDescriptor]
    ) throws(SystemError) -> pid_t {
        // Copies above every target first, so that no dup2 source is also a target (a dup2
        // onto itself would keep close-on-exec) and no target is overwritten before use.
        let firstTarget: Int32 = 3
        var copies: [Int32] = []
        defer { for copy in copies { _ = Glibc.close(copy) } }
        for descriptor in descriptors {
            let minimum = firstTarget + Int32(descriptors.count)
            copies.append(try SystemCall.posixBlocking("fcntl") { fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, minimum) })
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (offset, copy) in copies.enumerated() {
            try check(posix_spawn_file_actions_adddup2(&actions, copy, firstTarget + Int32(offset)), "posix_spawn_file_actions_adddup2")
        }
        try check(gestured_spawn_close_from(&actions, firstTarget + Int32(descriptors.count)), "posix_spawn_file_actions_addclosefrom_np")

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var pid: pid_t = 0
        let arguments = arguments.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        try check(posix_spawn(&pid, executable, &actions, &attributes, arguments, environ), "posix_spawn", path: executable)
        return pid
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

    /// Waits for `pid` to exit and reaps it.
    public static func reap(_ pid: pid_t) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && Glibc.errno == EINTR {}
    }

    /// Ignores `signals` in this process from now on (`SIG_IGN`).
    public static func ignore(signals: [Int32]) {
        for signal in signals { _ = Glibc.signal(signal, SIG_IGN) }
    }

    /// posix_spawn's family returns an errno value instead of setting errno.
    private static func check(_ result: Int32, _ call: String, path: String? = nil) throws(SystemError) {
        guard result != 0 else { return }
        throw SystemError(Errno(rawValue: result), call: call, path: path)
    }
}
