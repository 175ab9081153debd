import GestureCore

/// A configuration file that cannot be read or is not valid: names the file, the line
/// (when the problem has one) and the problem, as `gestured.toml:12: unknown key …`.
public struct ConfigError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The file as it was given to the loader.
    public var path: String
    /// 1-based line of the problem; nil for problems of the whole file (unreadable…).
    public var line: Int?
    /// What is wrong, without the location.
    public var message: String

    public init(path: String, line: Int?, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    /// `path:line: message`, or `path: message` without a line; control characters (a
    /// key or value quoted from the file) escaped, so the line is safe to print and log.
    public var description: String {
        if let line {
            return DisplayText.escaped("\(path):\(line): \(message)")
        }
        return DisplayText.escaped("\(path): \(message)")
    }
}
