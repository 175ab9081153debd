import GestureTestSupport
import Glibc
import SystemCalls
import Testing

@testable import EvdevInput

@Suite struct InotifyTests {
    /// One `struct inotify_event` as the kernel lays it out: wd, mask, cookie, len, name
    /// NUL-padded to `len`.
    static func record(wd: Int32, mask: UInt32, cookie: UInt32 = 0, name: String = "", padTo: Int = 16) -> [UInt8] {
        var bytes: [UInt8] = []
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        let length = name.isEmpty ? 0 : max(padTo, name.utf8.count + 1)
        append(wd)
        append(mask)
        append(cookie)
        append(UInt32(length))
        var nameBytes = Array(name.utf8)
        nameBytes += Array(repeating: 0, count: length - nameBytes.count)
        return bytes + nameBytes
    }

    static let create = UInt32(IN_CREATE)
    static let delete = UInt32(IN_DELETE)
    static let attrib = UInt32(IN_ATTRIB)

    @Test func parsesConsecutiveRecords() {
        let buffer =
            Self.record(wd: 1, mask: Self.create, name: "event5")
            + Self.record(wd: 1, mask: Self.attrib, cookie: 9, name: "event5", padTo: 32)
            + Self.record(wd: 2, mask: UInt32(IN_IGNORED))
        #expect(
            InputDirectoryWatcher.parse(buffer) == [
                InotifyRecord(watch: 1, mask: Self.create, name: "event5"),
                InotifyRecord(watch: 1, mask: Self.attrib, cookie: 9, name: "event5"),
                InotifyRecord(watch: 2, mask: UInt32(IN_IGNORED)),
            ])
    }

    @Test func truncatedOrLyingBuffersStopCleanly() {
        let whole = Self.record(wd: 1, mask: Self.create, name: "event5")
        let second = Self.record(wd: 1, mask: Self.delete, name: "event6")
        #expect(InputDirectoryWatcher.parse(whole + second.prefix(20)).count == 1)
        #expect(InputDirectoryWatcher.parse(Array(whole.prefix(10))).isEmpty)
        var lying = Self.record(wd: 1, mask: Self.create, name: "event5")
        lying[12] = 0xff  // len = 255, far past the end
        #expect(InputDirectoryWatcher.parse(lying).isEmpty)
        #expect(InputDirectoryWatcher.parse([]).isEmpty)
    }

    @Test func interpretsOnlyEventNodes() {
        func interpret(_ record: InotifyRecord) -> InputDirectoryWatcher.Interpretation {
            InputDirectoryWatcher.interpret(record, directoryWatch: 1, parentWatch: nil, directory: "/dev/input")
        }
        #expect(interpret(.init(watch: 1, mask: Self.create, name: "event5")) == .change(.added("/dev/input/event5")))
        #expect(interpret(.init(watch: 1, mask: Self.delete, name: "event5")) == .change(.removed("/dev/input/event5")))
        #expect(interpret(.init(watch: 1, mask: Self.attrib, name: "event5")) == .change(.attributesChanged("/dev/input/event5")))
        #expect(interpret(.init(watch: 1, mask: Self.create, name: "mouse0")) == .ignore)
        #expect(interpret(.init(watch: 1, mask: Self.create | UInt32(IN_ISDIR), name: "by-id")) == .ignore)
        #expect(interpret(.init(watch: 1, mask: UInt32(IN_DELETE_SELF))) == .directoryGone)
        #expect(interpret(.init(watch: -1, mask: UInt32(IN_Q_OVERFLOW))) == .change(.overflow))
        #expect(interpret(.init(watch: 7, mask: Self.create, name: "event5")) == .ignore)
    }

    @Test func parentWatchSeesTheDirectoryAppear() {
        let appeared = InputDirectoryWatcher.interpret(
            .init(watch: 3, mask: Self.create | UInt32(IN_ISDIR), name: "input"),
            directoryWatch: nil, parentWatch: 3, directory: "/dev/input")
        #expect(appeared == .directoryAppeared)
        let other = InputDirectoryWatcher.interpret(
            .init(watch: 3, mask: Self.create, name: "dri"), directoryWatch: nil, parentWatch: 3, directory: "/dev/input")
        #expect(other == .ignore)
    }

    /// A real inotify instance on a temporary tree: inotify queues each change when the
    /// file-system call returns, so no waiting is needed.
    @Test func watchesARealDirectoryThroughItsLife() throws {
        let tmp = TemporaryDirectory()
        let input = tmp.path + "/input"
        let watcher = try InputDirectoryWatcher(directory: input)
        #expect(!watcher.isWatchingDirectory)
        #expect(try watcher.readChanges() == [])

        tmp.createDirectory("input")
        #expect(try watcher.readChanges() == [.inputDirectoryAppeared])
        #expect(watcher.isWatchingDirectory)

        tmp.createFile("input/event3")
        tmp.createFile("input/js0")
        #expect(try watcher.readChanges() == [.added(input + "/event3")])
        chmod(input + "/event3", 0o660)
        #expect(try watcher.readChanges() == [.attributesChanged(input + "/event3")])
        unlink(input + "/event3")
        unlink(input + "/js0")
        #expect(try watcher.readChanges() == [.removed(input + "/event3")])

        rmdir(input)
        #expect(try watcher.readChanges() == [.inputDirectoryRemoved])
        #expect(!watcher.isWatchingDirectory)
        tmp.createDirectory("input")
        #expect(try watcher.readChanges() == [.inputDirectoryAppeared])
    }

    @Test func missingParentIsAClearError() {
        #expect(throws: SystemError(.noSuchFileOrDirectory, call: "inotify_add_watch", path: "/nonexistent-gestured")) {
            try InputDirectoryWatcher(directory: "/nonexistent-gestured/input")
        }
    }
}
