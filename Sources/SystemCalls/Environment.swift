import Glibc

/// The process's environment variables.
public enum Environment {
    /// The value of `name`, nil when it is not set.
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Removes `name` from the environment (children spawned later do not inherit it).
    public static func unset(_ name: String) {
        unsetenv(name)
    }
}
