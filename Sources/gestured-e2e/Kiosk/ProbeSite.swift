import Foundation
import GestureTestSupport
import Glibc
import SystemCalls

/// The kiosk page's site: gestured-web (the real bridge) serving a web root the driver
/// assembles in its work directory: the tier's page (the files of vm/kiosk-page/), the JS
/// client (web/gestured.js) beside it, and `control.js`, the driver's messages to the page
/// (a generation to load again, a reset, a state report to log). The page is thus served from the
/// bridge's own origin and its gestured client connects to the bridge that served it.
/// Started once per boot, before the first browser; it connects to the daemon's socket per
/// browser connection, so the daemon may come and go underneath it.
final class ProbeSite {
    static let address = "127.0.0.1:7412"
    let pageURL = "http://\(address)/probe.html"
    let logPath: String
    private let webRoot: String
    private let pid: pid_t

    /// `page`: the directory of the tier's page; `client`: web/gestured.js; `daemonSocket`:
    /// where the daemon of the cases listens.
    init(gesturedWeb: String, page: String, client: String, daemonSocket: String, work: String) throws(CaseFailure) {
        webRoot = "\(work)/web"
        logPath = "\(work)/gestured-web.log"
        try? RegularFile.makeDirectory(path: webRoot, mode: 0o755)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: page), names.contains("probe.html") else {
            throw CaseFailure("no probe.html in \(page)")
        }
        for (source, name) in names.map({ ("\(page)/\($0)", $0) }) + [(client, "gestured.js")] {
            guard let data = FileManager.default.contents(atPath: source),
                FileManager.default.createFile(atPath: "\(webRoot)/\(name)", contents: data)
            else { throw CaseFailure("cannot copy \(source) into the page's web root") }
        }
        // No host configuration: the built-in defaults (the bridge's own origin only).
        let config = "\(work)/gestured-web.toml"
        guard FileManager.default.createFile(atPath: config, contents: Data()) else { throw CaseFailure("cannot write \(config)") }
        try KioskRoot.bringUpLoopback(work: work)
        let notify: NotifySocket
        do {
            notify = try NotifySocket(path: "\(work)/gestured-web.notify")
        } catch {
            throw CaseFailure("cannot make gestured-web's notify socket: \(error)")
        }
        pid = try spawn(
            gesturedWeb,
            ["--listen", Self.address, "--socket", daemonSocket, "--config", config, "--web-root", webRoot],
            environment: ["NOTIFY_SOCKET=\(notify.path)"], logPath: logPath)
        _ = try awaitReady("gestured-web", pid: pid, notify: notify, logPath: logPath)
    }

    /// Writes the page's control file (atomically: the page never reads half of it).
    func writeControl(generation: Int, report: Int, reset: Int, options: PageOptions) throws(CaseFailure) {
        let text = "{\"generation\": \(generation), \"report\": \(report), \"reset\": \(reset), \(options.controlFields)}\n"
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(webRoot)/control.js"), options: .atomic)
        } catch {
            throw CaseFailure("cannot write the page's control file: \(error)")
        }
    }

    func stop() {
        Subprocess.send(SIGTERM, to: pid)
        if waitForExit(pid, timeout: 10) == nil {
            Subprocess.send(SIGKILL, to: pid)
            _ = waitForExit(pid, timeout: 5)
        }
    }
}
