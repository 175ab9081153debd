import SystemPackage

/// A descriptor systemd passed by socket activation (`ServiceManager.listenDescriptors()`).
public struct PassedDescriptor: Equatable, Sendable {
    /// The descriptor, from `SD_LISTEN_FDS_START` (3) on.
    public let descriptor: FileDescriptor
    /// Its name: the socket unit's `FileDescriptorName=`, by default the unit's name
    /// (`gestured.socket`); "unknown" when the manager passed none.
    public let name: String

    public init(descriptor: FileDescriptor, name: String) {
        self.descriptor = descriptor
        self.name = name
    }
}
