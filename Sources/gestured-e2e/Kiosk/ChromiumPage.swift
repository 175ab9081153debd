import Foundation
import GestureTestSupport

/// Chromium in kiosk mode showing the tier's page (vm/kiosk-page/probe.html), as a
/// `KioskClient`: its standard error goes to a FIFO the driver reads, where the page's
/// console lines (`--enable-logging=stderr --v=0`) are its events. Ready once the page of
/// the current generation has logged `ready`.
///
/// The page is reset between cases without restarting the browser (25–65 s under
/// emulation, minutes on a loaded host): `reset()` scrolls it to the top and clears its
/// selection; `reload()` writes a new generation into the site's control file, the page
/// loads itself again as a fresh document (also scale 1 after a pinch zoom, which no
/// script can undo), and logs `ready` again. `state()` asks for its current scale, scroll
/// and selection.
final class ChromiumPage: KioskClient {
    /// The command line Chromium runs with (the guide's, with the tier's additions).
    let arguments: [String]
    private let fifo: LineFifo
    private let site: ProbeSite
    private(set) var events: [PageEvent] = []
    private(set) var generation = 0
    private var report = 0
    private var resets = 0
    /// What the page lets Chromium do (`ProbeSite.writeControl`).
    private(set) var options = PageOptions()
    /// Chromium's other lines, for failure messages.
    private var otherLines: [String] = []

    /// Flags the tier adds to the guide's command line, for the test VM only, never for a
    /// real kiosk: `--no-sandbox` because the guest runs chrooted and the kernel refuses
    /// user namespaces in a chroot (Chromium exits with "No usable sandbox!");
    /// `--single-process` because under emulation on a loaded host Chromium's child
    /// processes do not get their connection from the browser within Chromium's fixed 15 s
    /// and exit ("Terminating current process after 15 seconds with no connection"), so the
    /// page never loads (seen with and without a GPU process, on one and two vCPUs); the
    /// logging flags carry the page's console to standard error.
    static let testFlags = ["--no-sandbox", "--single-process", "--enable-logging=stderr", "--v=0"]

    /// `command`: the guide's Chromium command line (program, flags, the operator's URL);
    /// the tier's flags go after the program and the probe page's URL replaces the
    /// operator's.
    init(command: [String], site: ProbeSite, fifo path: String) throws(CaseFailure) {
        let urls = command.indices.filter { command[$0].hasPrefix("http://") || command[$0].hasPrefix("https://") }
        guard !command.isEmpty, urls.count == 1 else {
            throw CaseFailure("the guide's Chromium command should be a program, flags and one URL: \(command)")
        }
        var arguments = command
        arguments[urls[0]] = site.pageURL
        arguments.insert(contentsOf: Self.testFlags, at: 1)
        self.arguments = arguments
        self.site = site
        fifo = try LineFifo(path: path)
        try site.writeControl(generation: generation, report: report, reset: resets, options: options)
    }

    var shellCommand: String {
        "exec " + arguments.map(shellQuoted).joined(separator: " ") + " 2> \(fifo.path) > /dev/null"
    }

    var isReady: Bool { events.contains { $0.name == "ready" && $0.generation == generation } }

    /// Chromium takes 25–65 s to show the page under emulation, 4–5 minutes on a loaded host.
    let readyTimeout: Double = 600

    var recent: String {
        "the page's last events: [\(events.suffix(10).map(\.summary).joined(separator: "; "))]; Chromium's last lines: \(otherLines.suffix(4))"
    }

    func pump(milliseconds: Int32, alongside subscriber: Subscriber? = nil) {
        for (line, _) in fifo.read(milliseconds: milliseconds, alongside: subscriber) {
            if let event = PageEvent.parse(line) {
                events.append(event)
            } else {
                otherLines.append(line)
                if otherLines.count > 40 { otherLines.removeFirst(otherLines.count - 40) }
            }
        }
    }

    /// The events from index `mark` on.
    func events(since mark: Int) -> ArraySlice<PageEvent> { events[min(mark, events.count)...] }

    /// The DOM input events (pointer, touch, mouse, click, contextmenu, selectstart) from
    /// index `mark` on.
    func inputs(since mark: Int) -> [PageEvent] { events(since: mark).filter(\.isInput) }

    /// Loads the page again as a fresh document and waits for its `ready`.
    func reload(alongside subscriber: Subscriber?) throws(CaseFailure) {
        generation += 1
        try site.writeControl(generation: generation, report: report, reset: resets, options: options)
        try wait("the reloaded page's ready (generation \(generation))", timeout: 180, alongside: subscriber) { isReady }
    }

    /// Scrolls the page to the top and clears its selection; returns its state after.
    @discardableResult
    func reset(alongside subscriber: Subscriber?) throws(CaseFailure) -> PageEvent {
        resets += 1
        return try state(alongside: subscriber)
    }

    /// Gives the page `options`; returns once the page acts on them (its next state report).
    func set(_ options: PageOptions, alongside subscriber: Subscriber?) throws(CaseFailure) {
        self.options = options
        let state = try state(alongside: subscriber)
        try expect(
            state.menus == options.menus && state.cursor == options.cursor,
            "the page reports menus \(state.menus.map(String.init) ?? "missing") and cursor \(state.cursor.map(String.init) ?? "missing"), not \(options)"
        )
    }

    /// The page's state now (a `state` line: scale, scroll, selection).
    func state(alongside subscriber: Subscriber?) throws(CaseFailure) -> PageEvent {
        report += 1
        try site.writeControl(generation: generation, report: report, reset: resets, options: options)
        let mark = events.count
        var found: PageEvent?
        try wait("the page's state report \(report)", timeout: 120, alongside: subscriber) {
            found = events(since: mark).first { $0.name == "state" && $0.report == report }
            return found != nil
        }
        return found!
    }
}

/// `text` as one word of a POSIX shell command line.
func shellQuoted(_ text: String) -> String {
    let plain = text.unicodeScalars.allSatisfy {
        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_=./:,@%+".unicodeScalars.contains($0)
    }
    return plain && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
