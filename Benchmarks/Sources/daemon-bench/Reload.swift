import GestureTestSupport
import Glibc
import SystemCalls

// How long a reload holds the daemon's loop (docs/reliability.md, "Configuration"): SIGHUP
// to a `gestured run --no-devices` with one client, timed from its RELOADING=1 to its
// READY=1 notification (both sent from the loop, around the reading, parsing and applying
// of the file), for the shipped configuration and for the largest files the limits allow.

/// The configurations timed: a name and the file's text.
func reloadCases(root: String) -> [(name: String, text: String)] {
    let shipped = readFile(root + "/config/gestured.toml") ?? ""
    let region = { (index: Int) in "[[region]]\nname = \"r\(index)\"\nrect = [0.0, 0.0, 0.5, 0.5]\ntap = { exclusive = true }\n" }
    let regions = (0..<1024).map(region).joined()
    // Every device entry with its own gestures copies the 1024 top-level regions.
    let devices = (0..<64).map { "[[device]]\nmatch-name = \"Panel \($0)*\"\n[device.gestures.tap]\nslop = \(1 + $0 % 9)\n" }.joined()
    var comments = "[daemon]\nmax-clients = 64\n"
    while comments.utf8.count < (1 << 20) - 200 {
        comments += "# " + String(repeating: "x", count: 97) + "\n"
    }
    return [
        ("config/gestured.toml (\(shipped.utf8.count / 1024) KiB)", shipped),
        ("1024 regions (\(regions.utf8.count / 1024) KiB)", regions),
        ("1024 regions × 64 devices (\(( regions + devices).utf8.count / 1024) KiB)", regions + devices),
        ("1 MiB of comments", comments),
    ]
}

func reload(_ options: Options) throws {
    let root = String(#filePath.split(separator: "/").dropLast(4).joined(separator: "/"))
    for (name, text) in reloadCases(root: "/" + root) {
        let directory = TemporaryDirectory(prefix: "gestured-bench")
        defer { withExtendedLifetime(directory) {} }  // removed when the run ends, not at its last use
        let dir = directory.path
        try writeFile("\(dir)/gestured.toml", text)
        let notify = try NotifySocket(path: "\(dir)/notify")
        let socketPath = "\(dir)/gestured.sock"
        let daemon = try Child(path: options.gestured, arguments: [
            "run", "--no-devices", "--socket", socketPath, "--config", "\(dir)/gestured.toml", "--log-level", "warning",
        ], environment: ["NOTIFY_SOCKET": notify.path])
        try waitForListener(socketPath)
        guard let client = connectUnix(socketPath) else { throw BenchError("cannot connect") }
        defer { close(client) }
        _ = try readLine(client)
        var held = Durations()
        for _ in 0..<options.reloads {
            _ = notify.drain()
            daemon.signal(SIGHUP)
            guard let reloading = notify.arrival(of: "RELOADING=1"), let ready = notify.arrival(of: "READY=1") else {
                throw BenchError("no RELOADING=1 / READY=1 from the daemon")
            }
            held.add(ready - reloading)
        }
        // Still serving.
        try send(.ping, to: client)
        guard case .pong? = message(try readLine(client)) else { throw BenchError("no pong after the reloads") }
        daemon.signal(SIGTERM)
        guard daemon.wait() == 0 else { throw BenchError("the daemon did not exit cleanly") }
        print("reload, \(name): loop held \(held.summary) over \(options.reloads) reloads")
        print("ROW| \(name) | \(milliseconds(held.percentile(0.5))) | \(milliseconds(held.percentile(1))) |")
    }
    fflush(nil)
}

extension NotifySocket {
    /// Waits (up to 10 s) for a notification containing `text`; returns when it arrived (µs).
    func arrival(of text: String) -> UInt64? {
        guard (try? wait(for: text)) != nil else { return nil }
        return monotonicMicroseconds()
    }
}
