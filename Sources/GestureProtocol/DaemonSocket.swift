/// Where the daemon's socket is: the one rule `gestured`, `gesturectl`, `gestured-web` and
/// the client libraries follow (docs/protocol.md "Transport").
///
/// An explicit setting wins (a program's `--socket PATH`; for the daemon, then its
/// `[daemon] socket` key), else a non-empty `$GESTURED_SOCKET`, else `standardPath`, where
/// `gestured.socket` listens. So one variable moves a daemon and its clients together
/// (`GESTURED_SOCKET=/tmp/g.sock gestured run & gesturectl subscribe`), and a path given on
/// the command line or in a file is never overridden by a variable inherited unseen.
public enum DaemonSocket {
    /// The path when nothing else is said: `/run/gestured/gestured.sock`.
    public static let standardPath = "/run/gestured/gestured.sock"

    /// The environment variable that moves the default: `GESTURED_SOCKET`.
    public static let environmentVariable = "GESTURED_SOCKET"

    /// The socket a program uses: `explicit` when given, else `$GESTURED_SOCKET` when set
    /// and not empty, else `standardPath`. `environment` looks a variable up (the
    /// process's environment in the programs, a dictionary in tests).
    public static func path(explicit: String?, environment: (String) -> String?) -> String {
        if let explicit { return explicit }
        if let value = environment(environmentVariable), !value.isEmpty { return value }
        return standardPath
    }
}
