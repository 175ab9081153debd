import Glibc
import SystemCalls
import SystemPackage

/// A change to the set of evdev nodes, as the hot-plug watcher saw it.
public enum DeviceChange: Sendable, Hashable {
    /// The node (full path) was created: open it (it may not be readable until udev sets its mode;
    /// an `attributesChanged` follows then).
    case added(String)
    /// `eventN` was deleted: drop the device (reads will also report `.deviceGone`).
    case removed(String)
    /// `eventN`'s owner or mode changed: retry opening it if an earlier open failed.
    case attributesChanged(String)
    /// The input directory itself appeared: scan it (nodes may already be inside).
    case inputDirectoryAppeared
    /// The input directory was removed; the watcher waits for it to come back.
    case inputDirectoryRemoved
    /// The kernel's inotify queue overflowed: changes were lost, scan again.
    case overflow
}

/// One record of an inotify read buffer (`struct inotify_event`).
public struct InotifyRecord: Sendable, Hashable {
    public var watch: Int32
    public var mask: UInt32
    public var cookie: UInt32
    /// The entry name inside the watched directory; empty for events on the directory itself.
    public var name: String

    public init(watch: Int32, mask: UInt32, cookie: UInt32 = 0, name: String = "") {
        self.watch = watch
        self.mask = mask
        self.cookie = cookie
        self.name = name
    }
}

/// Hot-plug without udev: inotify on the input directory (or, while it does not exist, on
/// its parent, for its creation). The daemon's event loop polls `fileDescriptor` for input
/// and calls `readChanges()`; this class never blocks.
public final class InputDirectoryWatcher {
    /// Non-blocking, close-on-exec inotify descriptor.
    public let fileDescriptor: FileDescriptor
    /// The watched input directory, e.g. `/dev/input`.
    public let directory: String
    /// The watch on `directory`, nil while it does not exist.
    private var directoryWatch: Int32?
    /// The watch on the parent, only while `directory` does not exist.
    private var parentWatch: Int32?

    /// Whether the input directory exists and is being watched (false: waiting for it).
    public var isWatchingDirectory: Bool { directoryWatch != nil }

    static let directoryMask = UInt32(IN_CREATE | IN_DELETE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
    static let parentMask = UInt32(IN_CREATE | IN_MOVED_TO) | UInt32(IN_ONLYDIR)

    public init(directory: String = DeviceDiscovery.inputDirectory) throws(SystemError) {
        self.directory = directory
        self.fileDescriptor = FileDescriptor(
            rawValue: try SystemCall.posixBlocking("inotify_init1") {
                inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            })
        do {
            try watchDirectoryOrParent()
        } catch {
            try? fileDescriptor.close()
            throw error
        }
    }

    deinit {
        try? fileDescriptor.close()
    }

    /// Reads every pending inotify record and returns the device changes they mean, in order.
    public func readChanges() throws(SystemError) -> [DeviceChange] {
        var changes: [DeviceChange] = []
        let capacity = 16 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let outcome = try SystemCall.posix("read", path: "inotify:" + directory) {
                read(fileDescriptor.rawValue, buffer.baseAddress, capacity)
            }
            guard case .processed(let count) = outcome, count > 0 else { return changes }
            for record in Self.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) {
                try changes.append(contentsOf: handle(record))
            }
        }
    }

    private func handle(_ record: InotifyRecord) throws(SystemError) -> [DeviceChange] {
        let interpretation = Self.interpret(
            record, directoryWatch: directoryWatch, parentWatch: parentWatch,
            directory: directory)
        switch interpretation {
        case .ignore:
            return []
        case .change(let change):
            return [change]
        case .directoryAppeared:
            guard directoryWatch == nil else { return [] }
            try watchDirectoryOrParent()
            return directoryWatch == nil ? [] : [.inputDirectoryAppeared]
        case .directoryGone:
            guard directoryWatch != nil else { return [] }
            if let watch = directoryWatch { removeWatch(watch) }
            directoryWatch = nil
            try watchDirectoryOrParent()
            return [.inputDirectoryRemoved] + (directoryWatch == nil ? [] : [.inputDirectoryAppeared])
        }
    }

    /// Watches the directory if it exists (dropping the parent watch), else its parent.
    private func watchDirectoryOrParent() throws(SystemError) {
        let path = directory
        let fd = fileDescriptor.rawValue
        let outcome: IOResult<Int32>
        do {
            outcome = try SystemCall.posix("inotify_add_watch", path: path) {
                inotify_add_watch(fd, path, Self.directoryMask | UInt32(IN_ONLYDIR))
            }
        } catch  where error.errno == .noSuchFileOrDirectory {
            if parentWatch == nil {
                let parent = Self.parentDirectory(directory)
                parentWatch = try SystemCall.posixBlocking("inotify_add_watch", path: parent) {
                    inotify_add_watch(fd, parent, Self.parentMask)
                }
            }
            return
        }
        if case .processed(let watch) = outcome {
            directoryWatch = watch
            if let parent = parentWatch {
                removeWatch(parent)
                parentWatch = nil
            }
        }
    }

    /// Drops a watch; one the kernel already dropped (the directory went) is no error.
    private func removeWatch(_ watch: Int32) {
        let fd = fileDescriptor.rawValue
        _ = try? SystemCall.posixBlocking("inotify_rm_watch") { inotify_rm_watch(fd, watch) }
    }

    /// What one record means, given the current watches. Pure.
    enum Interpretation: Hashable {
        case ignore
        case change(DeviceChange)
        case directoryAppeared
        case directoryGone
    }

    static func interpret(
        _ record: InotifyRecord, directoryWatch: Int32?, parentWatch: Int32?, directory: String
    ) -> Interpretation {
        if record.mask & UInt32(IN_Q_OVERFLOW) != 0 { return .change(.overflow) }
        if record.watch == directoryWatch {
            if record.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 { return .directoryGone }
            guard DeviceDiscovery.eventNumber(record.name) != nil else { return .ignore }
            let node = directory + "/" + record.name
            if record.mask & UInt32(IN_CREATE) != 0 { return .change(.added(node)) }
            if record.mask & UInt32(IN_DELETE) != 0 { return .change(.removed(node)) }
            if record.mask & UInt32(IN_ATTRIB) != 0 { return .change(.attributesChanged(node)) }
            return .ignore
        }
        if record.watch == parentWatch, record.name == lastComponent(directory),
            record.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0
        {
            return .directoryAppeared
        }
        return .ignore
    }

    /// Splits an inotify read buffer into records. A truncated tail is ignored (the kernel
    /// never returns partial records; this keeps hostile input from crashing).
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> [InotifyRecord] {
        let header = 16
        var records: [InotifyRecord] = []
        var offset = 0
        while bytes.count - offset >= header {
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let cookie = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            guard length <= bytes.count - offset - header else { break }
            let nameBytes = bytes[(offset + header)..<(offset + header + length)]
            let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
            records.append(InotifyRecord(watch: watch, mask: mask, cookie: cookie, name: name))
            offset += header + length
        }
        return records
    }

    /// `parse` over an array, for tests and callers holding bytes.
    public static func parse(_ bytes: [UInt8]) -> [InotifyRecord] {
        bytes.withUnsafeBytes { parse($0) }
    }

    static func lastComponent(_ path: String) -> String {
        String(path.split(separator: "/").last ?? "")
    }

    static func parentDirectory(_ path: String) -> String {
        let parts = path.split(separator: "/")
        let parent = parts.dropLast().joined(separator: "/")
        return path.hasPrefix("/") ? "/" + parent : (parent.isEmpty ? "." : parent)
    }
}
