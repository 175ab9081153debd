import Foundation
import GestureTestSupport
import SystemCalls
import Testing

@Suite struct SystemdUnitTests {
    /// `systemd-analyze verify` on the units, with ExecStart pointing at the built binary
    /// (verify checks that the executable exists).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")))
    func unitsVerify() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let directory = TemporaryDirectory()
        let gestured = try builtExecutable("gestured")
        let service = try String(contentsOf: root.appendingPathComponent("systemd/gestured.service"), encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/gestured", with: gestured)
        try service.write(toFile: directory.file("gestured.service"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            atPath: root.appendingPathComponent("systemd/gestured.socket").path, toPath: directory.file("gestured.socket"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        // --man=no: Documentation= names the manual pages the Debian package installs;
        // scripts/test-deb.sh verifies the packaged units with those pages.
        process.arguments = ["verify", "--man=no", directory.file("gestured.service"), directory.file("gestured.socket")]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let output = Pipe.closingOnExec()
        process.standardError = output
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.isEmpty, "\(text)")
    }
}

extension SystemdUnitTests {
    /// The same for gesturectl actions' user unit, verified as the user manager would load it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")))
    func actionsUserUnitVerifies() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let directory = TemporaryDirectory()
        let unit = try String(contentsOf: root.appendingPathComponent("systemd/gestured-actions.service"), encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/gesturectl", with: try builtExecutable("gesturectl"))
        #expect(unit.contains("ExecStart=\(try builtExecutable("gesturectl")) actions\n"))
        try unit.write(toFile: directory.file("gestured-actions.service"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: directory.file("runtime"), withIntermediateDirectories: false)
        let result = try runToCompletion(
            "/usr/bin/systemd-analyze", ["--user", "verify", "--man=no", directory.file("gestured-actions.service")],
            environment: ["XDG_RUNTIME_DIR": directory.file("runtime"), "PATH": "/usr/bin:/bin"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.isEmpty && result.error.isEmpty, "\(result.output)\(result.error)")
    }
}
