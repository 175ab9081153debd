import SystemPackage

/// A descriptor systemd passed (`ServiceManager.listenDescriptors()`): a socket of socket
/// activation, or one the service put in its file descriptor store (`ServiceManager.store`).
public struct PassedDescriptor: Equatable, Sendable {
    /// The descriptor, from `SD_LISTEN_FDS_START` (3) on.
    public let descriptor: FileDescriptor
    /// Its name: the socket unit's `FileDescriptorName=`, by default the unit's name
    /// (`gestured.socket`), or the `FDNAME=` it was stored under; "unknown" when the manager
    /// passed none.
    public let name: String

    public init(descriptor: FileDescriptor, name: String) {
        self.descriptor = descriptor
        self.name = name
    }
}
