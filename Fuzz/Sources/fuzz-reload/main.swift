import ConfigFile
@testable import Daemon
import FuzzSupport
import GestureCore
import GestureProtocol
import Glibc
import Logging
import SystemCalls

// The live reload path (SIGHUP): a daemon with a looping replay and a subscribed client;
// each input becomes the configuration file and is reloaded, the loop turns, the client
// reads. Whatever the file holds, the daemon must go on: the new configuration in force,
// or the old one kept, and the client still served.

// In memory when possible: on ext4, rewriting a truncated file flushes it on close.
let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
var template = Array("\(base)/gestured-fuzz-reload-XXXXXX".utf8CString)
guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { fatalError("mkdtemp") }
let directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
let configPath = directory + "/gestured.toml"
let socketPath = directory + "/gestured.sock"
atexit {
    // The harness's files: libFuzzer exits without the daemon stopping.
    unlink(configPath)
    unlink(socketPath)
    rmdir(directory)
}

LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }
let listener = try UnixListener(path: socketPath, mode: 0o600, group: nil)
let daemon = try Daemon(configuration: Configuration(), listener: listener, version: "fuzz", logger: Logger(label: "fuzz")) {
    try ConfigLoader.load(path: configPath)
}

// A touchscreen tapping and dragging forever, so every reload reconfigures a device in use.
let screen = DeviceDescription(
    name: "Fuzz Touchscreen", properties: [INPUTPROP.direct], codes: [EV.key: [BTN.touch]],
    absInfo: [ABS.mtSlot: AbsInfo(minimum: 0, maximum: 9), ABS.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
              ABS.mtPositionX: AbsInfo(minimum: 0, maximum: 1000, resolution: 4), ABS.mtPositionY: AbsInfo(minimum: 0, maximum: 1000, resolution: 4)])
var events: [InputEvent] = []
var time = Timestamp(microseconds: 1_000_000)
for stroke in 0..<20 {
    events.append(InputEvent(time: time, type: EV.abs, code: ABS.mtTrackingID, value: Int32(stroke)))
    for step in 0..<8 {
        events.append(InputEvent(time: time, type: EV.abs, code: ABS.mtPositionX, value: Int32(100 + stroke * 30 + step * (stroke % 3) * 40)))
        events.append(InputEvent(time: time, type: EV.abs, code: ABS.mtPositionY, value: Int32(500)))
        events.append(InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0))
        time = time + .microseconds(8_000)
    }
    events.append(InputEvent(time: time, type: EV.abs, code: ABS.mtTrackingID, value: -1))
    events.append(InputEvent(time: time, type: EV.syn, code: SYN.report, value: 0))
    time = time + .microseconds(UInt64(stroke % 4) * 150_000)
}
try daemon.add(ReplaySource(description: screen, events: events, path: nil, configuration: Configuration(),
                            speed: 1, loops: true, now: Timestamp(microseconds: daemon.loop.now)))

@MainActor func turnLoop() {
    for _ in 0..<64 where daemon.loop.runOnce() {}
}

let client = try UnixSocket.connect(to: socketPath, nonBlocking: true).rawValue
turnLoop()
let subscribe = Array(#"{"type":"subscribe"}"#.utf8) + [10]
_ = subscribe.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
var buffer = [UInt8](repeating: 0, count: 1 << 16)

fuzzMain { input in
    guard let file = fopen(configPath, "w") else { fatalError("cannot write \(configPath)") }
    fwrite(input.baseAddress, 1, input.count, file)
    fclose(file)
    let before = daemon.configuration
    daemon.reloadConfiguration()
    turnLoop()
    while buffer.withUnsafeMutableBytes({ recv(client, $0.baseAddress, $0.count, 0) }) > 0 {}
    if daemon.isStopping { violation("the daemon stopped on a reload") }
    if daemon.clientCount != 1 { violation("the subscribed client was lost (\(daemon.clientCount) clients)") }
    if daemon.activeSources.count != 1 { violation("the replayed device was lost on a reload") }
    let loaded = try? ConfigLoader.load(path: configPath)
    if daemon.configuration != (loaded ?? before) { violation("neither the new configuration nor the old one is in force") }
}
