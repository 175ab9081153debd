/// Where the `wayland` keyboard's wtype connects: the session's Wayland socket as libwayland
/// finds it (`WAYLAND_DISPLAY`, absolute or relative to `XDG_RUNTIME_DIR`; `wayland-0`
/// when unset), and what is wrong when there is none.
public enum WaylandSession {
    /// The socket path, or why there is no Wayland display (naming the variables); `exists`
    /// says whether anything is at a path.
    public static func socket(
        waylandDisplay: String?, runtimeDirectory: String?, exists: (String) -> Bool
    ) -> Result<String, Problem> {
        let display = waylandDisplay.flatMap { $0.isEmpty ? nil : $0 }
        let path: String
        if let display, display.hasPrefix("/") {
            path = display
        } else {
            guard let runtimeDirectory, !runtimeDirectory.isEmpty else {
                return .failure(Problem("XDG_RUNTIME_DIR is not set (WAYLAND_DISPLAY: \(display ?? "not set"))"))
            }
            path = runtimeDirectory + "/" + (display ?? "wayland-0")
        }
        if exists(path) {
            return .success(path)
        }
        let directory = "XDG_RUNTIME_DIR=\(runtimeDirectory ?? "not set")"
        if let display {
            return .failure(Problem("no Wayland socket at \(path) (WAYLAND_DISPLAY=\(display), \(directory))"))
        }
        return .failure(Problem("WAYLAND_DISPLAY is not set and there is no \(path) (\(directory))"))
    }

    /// Why there is no Wayland display to type on.
    public struct Problem: Error, Hashable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }
}
