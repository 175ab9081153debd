import Actions
import SystemCalls
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A command started for an action: its own process group (so a timeout's signals reach
/// what it started too), standard input `/dev/null` (or a pipe of gesturectl's), standard
/// output shared with gesturectl, standard error to a pipe gesturectl reads (its first
/// lines are logged).
struct ChildProcess {
    let pid: pid_t
    /// Read end of the child's standard error, non-blocking.
    let stderr: FileDescriptor

    /// Why a command could not be started.
    struct SpawnError: Error, CustomStringConvertible {
        let program: String
        let errno: Int32
        var description: String { "cannot run '\(program)': \(String(cString: strerror(errno)))" }
    }

    /// Starts `argv` (searched in `PATH` when it has no slash, no shell) with gesturectl's
    /// environment plus `extraEnvironment` (which replaces variables of the same name). It
    /// inherits no descriptor but standard output, its standard error pipe and
    /// `standardInput` (standard input; `/dev/null` when nil).
    static func spawn(
        _ argv: [String], extraEnvironment: [(name: String, value: String)], standardInput: FileDescriptor? = nil
    ) throws(SpawnError) -> ChildProcess {
        var options = Subprocess.Options()
        options.searchPath = true
        options.ownProcessGroup = true
        options.nullStandardInput = true
        options.standardInput = standardInput
        options.environment = Subprocess.environment(
            Subprocess.environment(), overriddenBy: extraEnvironment.map { "\($0.name)=\($0.value)" })
        do throws(SystemError) {
            let pipe = try Subprocess.pipe(nonBlocking: (read: true, write: false))
            defer { try? pipe.write.close() }
            options.standardError = pipe.write
            do throws(SystemError) {
                let pid = try Subprocess.spawn(executable: argv[0], arguments: argv, options: options)
                return ChildProcess(pid: pid, stderr: pipe.read)
            } catch {
                try? pipe.read.close()
                throw error
            }
        } catch {
            throw SpawnError(program: argv[0], errno: error.errno.rawValue)
        }
    }

    /// Sends `signal` to the command's process group (what it started too); a group that
    /// is already gone is not an error.
    func signal(_ signal: Int32) {
        Subprocess.send(signal, to: -pid)
    }
}
