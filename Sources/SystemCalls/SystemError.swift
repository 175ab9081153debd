import SystemPackage

/// A failed system or library call: the `errno` it reported (swift-system's typed `Errno`),
/// the call's name, and the path it worked on when there is one. The one error type every
/// wrapper of a system call or C library throws (SystemCalls, EvdevInput, Daemon).
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the call reported, already converted from libevdev's / sd-*'s `-errno`.
    public var errno: Errno
    /// The call that failed, e.g. `open`, `libevdev_new_from_fd`.
    public var call: String
    /// The file the call worked on, if any.
    public var path: String?

    public init(_ errno: Errno, call: String, path: String? = nil) {
        self.errno = errno
        self.call = call
        self.path = path
    }

    /// The C library's text for `errno`, e.g. "Permission denied".
    public var reason: String { errno.description }

    /// What an operator can do about it, when there is a well-known remedy.
    public var hint: String? {
        switch (errno, path) {
        case (.permissionDenied, let path?) where path.hasPrefix("/dev/input"),
            (.notPermitted, let path?) where path.hasPrefix("/dev/input"):
            return "add the user to group `input` (or run the service with SupplementaryGroups=input)"
        case (.noSuchFileOrDirectory, "/dev/uinput"?):
            return "this kernel has no uinput"
        case (.permissionDenied, "/dev/uinput"?):
            return "run as root or grant access to /dev/uinput"
        case (.inappropriateIOCTLForDevice, _) where call.hasPrefix("libevdev_new"),
            (.invalidArgument, _) where call.hasPrefix("libevdev_new"):
            return "not an evdev device"
        default:
            return nil
        }
    }

    public var description: String {
        var text = path.map { "\($0): \(reason)" } ?? "\(call): \(reason)"
        if let hint { text += " — \(hint)" }
        if path != nil { text += " (\(call))" }
        return text
    }
}
