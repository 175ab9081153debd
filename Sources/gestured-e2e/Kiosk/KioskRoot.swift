import Foundation
import Glibc
import SystemCalls

/// The guest's root filesystem, and everything the kiosk tier assumes of it, in one place.
/// The guest's root is the host's own `/` (Debian 12), shared read-only over 9p (vm/run.sh):
/// the guest runs the host's programs (cage 0.1.4, sway 1.7, Chromium, Xwayland, seatd,
/// udev; vm/test-kiosk.sh checks that they are installed); or a Debian 13 root made by
/// vm/kiosk-root.sh (labwc 0.8, cage 0.2.0, Chromium; `vm/run.sh --root`), where labwc also
/// runs as Raspberry Pi OS starts it (`raspios`). Its `/tmp` and `/run`
/// are fresh tmpfs and the work directory (the checkout) is shared read-write, so the
/// page and docs/kiosk.md are read from the checkout. The kernel refuses user namespaces
/// in the chroot the guest runs in (Chromium's sandbox: `ChromiumPage.testFlags`).
/// Another root is a new entry in `roots` with the stacks that hold there, booted on its own.
struct KioskRoot {
    /// What `/etc/os-release` calls it (`VERSION_CODENAME`).
    let codename: String
    /// The compositor and client pairs run on it, in order, each with its output.
    let stacks: [KioskStack]

    static let roots = [
        KioskRoot(
            codename: "bookworm",
            stacks: [
                KioskStack(compositor: .cage, client: .wev), KioskStack(compositor: .sway, client: .wev),
                // On the GPU: its last case is wake-swallow against swayidle's DPMS off.
                KioskStack(compositor: .sway, client: .chromium, output: .drm), KioskStack(compositor: .cage, client: .chromium),
            ]),
        // vm/kiosk-root.sh's Debian 13 root (Raspberry Pi OS trixie's compositor).
        KioskRoot(
            codename: "trixie",
            stacks: [
                KioskStack(compositor: .labwc, client: .wev), KioskStack(compositor: .cage2, client: .wev),
                // On the GPU: its last cases are wake-swallow against raspi-config's blanking
                // and against gestured's own idle actions (`KioskBlanker`).
                KioskStack(compositor: .labwc, client: .chromium, output: .drm), KioskStack(compositor: .cage2, client: .chromium),
                // The wake under cage 0.2.0 in the default tier (`cage2-wake`), its whole
                // stacks being minutes longer: Chromium's start and the wake case alone.
                KioskStack(compositor: .cage2, client: .chromium, wakeOnly: true),
                // Raspberry Pi OS's session as shipped (`labwc -m` with its /etc/xdg/labwc), on
                // the GPU for raspi-config's blanking; without and with a USB mouse.
                KioskStack(compositor: .raspios, client: .chromium, output: .drm),
                KioskStack(compositor: .raspios, client: .chromium, output: .drm, mouse: true),
            ]),
    ]

    /// Every name `--kiosk` takes (`KioskStack.selector`), in the table's order.
    static var selectors: [String] {
        var names: [String] = []
        for stack in roots.flatMap(\.stacks) where !names.contains(stack.selector) { names.append(stack.selector) }
        return names
    }

    /// The root this guest runs on, from `/etc/os-release`.
    static func current() throws(CaseFailure) -> KioskRoot {
        let release = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
        let codename = release.split(separator: "\n").first { $0.hasPrefix("VERSION_CODENAME=") }.map {
            String($0.dropFirst("VERSION_CODENAME=".count))
        }
        guard let root = roots.first(where: { $0.codename == codename }) else {
            throw CaseFailure("the kiosk tier knows no stacks for this root (VERSION_CODENAME \(codename ?? "missing")): see KioskRoot")
        }
        return root
    }

    static let setpriv = "/usr/bin/setpriv"
    static let seatd = "/usr/sbin/seatd"
    static let udevadm = "/bin/udevadm"
    static let swaymsg = "/usr/bin/swaymsg"
    static let ip = "/bin/ip"

    /// The kiosk user compositors and clients run as: `nobody` (cage refuses root).
    static func kioskUser() throws(CaseFailure) -> (uid: uid_t, gid: gid_t) {
        guard let nobody = getpwnam("nobody") else { throw CaseFailure("no user nobody") }
        return (nobody.pointee.pw_uid, nobody.pointee.pw_gid)
    }

    /// The guest boots with no network at all, not even loopback up: the page's site
    /// (gestured-web on 127.0.0.1) needs it.
    static func bringUpLoopback(work: String) throws(CaseFailure) {
        let log = "\(work)/ip.log"
        let pid = try spawn(ip, ["link", "set", "lo", "up"], logPath: log)
        guard waitForExit(pid, timeout: 30) == 0 else { throw CaseFailure("ip link set lo up failed: \(tail(log))") }
    }
}
