import Foundation
import Glibc
import SystemCalls

/// The compositors the kiosk tier runs, and how each is told which client to show: adding
/// a compositor is a new case here (its command line and configuration) and an entry in
/// `KioskRoot`'s table of stacks.
enum CompositorKind: String, CaseIterable {
    /// cage 0.1.4 (Debian 12): one fullscreen client, given on its command line.
    case cage
    /// sway 1.7 (Debian 12): a tiling compositor whose configuration starts the client.
    case sway

    /// The command line that starts this compositor running `client` (a shell command),
    /// with `setup`'s own flags (cage) or configuration lines (sway, written to a file in
    /// `work` that the compositor's user can read).
    func commandLine(running client: String, setup: CompositorSetup, work: String) throws(CaseFailure) -> [String] {
        switch self {
        case .cage:
            return ["cage"] + setup.arguments + ["--", "sh", "-c", client]
        case .sway:
            let config = "\(work)/sway.conf"
            let text = (setup.configLines + ["exec \(client)"]).joined(separator: "\n") + "\n"
            guard FileManager.default.createFile(atPath: config, contents: Data(text.utf8)) else {
                throw CaseFailure("cannot write \(config)")
            }
            _ = try? SystemCall.posixBlocking("chmod", path: config) { chmod(config, 0o644) }
            return ["sway"] + setup.arguments + ["-c", config]
        }
    }
}

/// What a kiosk recipe adds to a compositor besides its client: command-line flags (cage's
/// `-d`) and configuration lines (sway's `default_border none`).
struct CompositorSetup: Equatable {
    var arguments: [String] = []
    var configLines: [String] = []
}
