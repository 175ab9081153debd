// swift-tools-version: 6.2
import PackageDescription

/// gestured: touch gestures for Linux kiosks, served over a Unix socket. Linux only.
///
/// Layout (see docs/architecture.md), from the bottom up:
/// - GestureProtocol: the wire protocol (docs/protocol.md) as Swift types, its one encoder
///   and its one strict decoder; no Foundation, no C. At the bottom: everything that reads or
///   writes protocol lines (daemon, clients, replay, drivers, benchmarks) shares it.
/// - GestureCore: pure Swift, no I/O and no C: evdev event model, contact tracking,
///   recognizers, arena, regions, configuration model, typed time and length; speaks the
///   protocol's vocabulary (gesture kinds, phases, points, timestamps).
/// - CSystemCalls / SystemCalls: the one system-call layer (swift-system's `FileDescriptor`
///   and `Errno` where they fit, our own wrappers for the rest: errno, sockets, the socket
///   address, regular files, the monotonic clock).
/// - Recordings: readers for evemu, `libinput record`, evtest and `getevent -lt` text.
/// - ConfigFile: the TOML reader.
/// - CEvdev / EvdevInput: the only place libevdev is touched.
/// - CSystemd / Systemd: a service's systemd integration (notifications, the watchdog, the
///   listening sockets systemd passes, journald logging), the daemon's event loop (sd-event)
///   and udev (sd-device: the hot-plug monitor, a node's properties), through libsystemd,
///   shared by `gestured` and `gestured-web`; Systemd is the only target that imports CSystemd.
/// - Daemon: hot-plug (udev through Systemd's sd-device monitor, or inotify), socket,
///   broadcaster, on Systemd's event loop (docs/architecture.md, "libsystemd").
/// - gestured, gesturectl: the executables; `gestured` joins Recordings and Daemon for
///   `run --replay`.
/// - GestureTestSupport: what tests, the end-to-end driver, the benchmarks and the fuzzers
///   share (as NIOTestUtils is for swift-nio); no production target depends on it.
let package = Package(
    name: "gestured",
    products: [
        .executable(name: "gestured", targets: ["gestured"]),
        .executable(name: "gesturectl", targets: ["gesturectl"]),
        .executable(name: "gestured-e2e", targets: ["gestured-e2e"]),
        .executable(name: "gestured-web", targets: ["gestured-web"]),
        .library(name: "GestureClient", targets: ["GestureClient"]),
        .library(name: "GestureProtocol", targets: ["GestureProtocol"]),
        .library(name: "GestureCore", targets: ["GestureCore"]),
        // For the engine benchmark (Benchmarks/), which loads the corpus with the replay readers.
        .library(name: "Recordings", targets: ["Recordings"]),
        // For the fuzz harnesses (Fuzz/): the configuration reader and the daemon's request
        // reader and reload path.
        .library(name: "ConfigFile", targets: ["ConfigFile"]),
        .library(name: "Daemon", targets: ["Daemon"]),
        .library(name: "Systemd", targets: ["Systemd"]),
        // For the benchmarks and the fuzz harnesses: sockets and the socket address.
        .library(name: "SystemCalls", targets: ["SystemCalls"]),
        // For the benchmarks and the fuzz harnesses: the stream validator, the line client.
        .library(name: "GestureTestSupport", targets: ["GestureTestSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // Test only: the property tests.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        // Test only: the TOML reader is checked against it (Tests/ConfigFileTests).
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
        // gestured-web: HTTP/1.1 and RFC 6455 WebSocket from SwiftNIO (docs/web.md).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // gestured-web's /metrics: the Prometheus text format (docs/metrics.md).
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .target(name: "GestureProtocol"),
        .target(name: "GestureCore", dependencies: ["GestureProtocol"]),
        .systemLibrary(name: "CSystemCalls"),
        .target(
            name: "SystemCalls",
            dependencies: ["CSystemCalls", .product(name: "SystemPackage", package: "swift-system")]
        ),
        .target(name: "Recordings", dependencies: ["GestureCore", "GestureProtocol", "SystemCalls"]),
        .target(name: "ConfigFile", dependencies: ["GestureCore", "GestureProtocol", "SystemCalls", "Actions"]),
        /// `gesturectl actions`, pure: the actions model, matcher, and the overlap/timeout
        /// and reconnect policies as state machines on a virtual clock (the file is read by
        /// ConfigFile, the runner lives in gesturectl).
        .target(name: "Actions", dependencies: ["GestureCore", "GestureProtocol"]),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .target(
            name: "EvdevInput",
            dependencies: [
                "CEvdev", "GestureCore", "GestureProtocol", "SystemCalls", .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        /// libsystemd (sd-daemon, sd-journal, sd-event, sd-device), used only by Systemd.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        /// Notifications (`READY=1`, `STATUS=`, `RELOADING=1`, `STOPPING=1`, `WATCHDOG=1`), the
        /// listening sockets systemd passes (`LISTEN_FDS`) and the journald log handler, through
        /// libsystemd: what both `gestured` and `gestured-web` need of systemd, without the
        /// daemon or libevdev; and the daemon's event loop on sd-event, the udev monitor and
        /// a node's udev properties on sd-device.
        .target(
            name: "Systemd",
            dependencies: [
                "CSystemd", "GestureCore", "GestureProtocol", "SystemCalls",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "Daemon",
            dependencies: [
                "Systemd", "GestureProtocol", "GestureCore", "EvdevInput", "SystemCalls",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "GestureClient",
            dependencies: ["GestureProtocol", "SystemCalls", .product(name: "SystemPackage", package: "swift-system")]
        ),
        .executableTarget(
            name: "gestured",
            dependencies: [
                "GestureCore", "GestureProtocol", "GestureClient", "ConfigFile", "Recordings", "EvdevInput", "Daemon", "Systemd",
                "SystemCalls",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .executableTarget(
            name: "gesturectl",
            dependencies: [
                "GestureCore",
                "GestureClient",
                "Actions", "ConfigFile", "EvdevInput", "SystemCalls",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "GestureTestSupport",
            dependencies: [
                "GestureCore", "GestureProtocol", "EvdevInput", "Recordings", "SystemCalls",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .executableTarget(
            name: "gestured-e2e",
            dependencies: [
                "EvdevInput", "Recordings", "GestureCore", "GestureProtocol", "GestureClient", "GestureTestSupport", "SystemCalls",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "GestureProtocolTests",
            dependencies: [
                "GestureProtocol",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        /// The WebSocket bridge: HTTP routes, the origin check, one daemon connection per
        /// browser with a bounded queue, listeners (own or from systemd).
        .target(
            name: "WebBridge",
            dependencies: [
                "ConfigFile", "GestureCore", "GestureProtocol", "SystemCalls",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "gestured-web",
            dependencies: [
                "WebBridge", "ConfigFile", "GestureCore", "GestureProtocol", "Systemd", "SystemCalls",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "GestureCoreTests",
            dependencies: [
                "GestureCore", "GestureProtocol", "GestureTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "SystemdTests",
            dependencies: [
                "Systemd", "GestureCore", "GestureProtocol", "GestureTestSupport", "SystemCalls",
                .product(name: "SystemPackage", package: "swift-system"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SystemCallsTests",
            dependencies: [
                "SystemCalls", "GestureTestSupport", .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "ConfigFileTests",
            dependencies: [
                "ConfigFile", "GestureCore", "GestureTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        .testTarget(name: "ActionsTests", dependencies: ["Actions", "ConfigFile", "EvdevInput", "GestureCore", "GestureProtocol"]),
        .testTarget(name: "RecordingsTests", dependencies: ["Recordings", "GestureCore", "GestureProtocol", "GestureTestSupport"]),
        .testTarget(
            name: "ReplayTests",
            dependencies: [
                "Recordings", "GestureCore", "GestureProtocol", "GestureTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "EvdevInputTests",
            dependencies: ["EvdevInput", "GestureCore", "GestureProtocol", "GestureTestSupport", "SystemCalls"]
        ),
        .testTarget(
            name: "DaemonTests",
            dependencies: [
                "Daemon", "Systemd", "GestureProtocol", "GestureCore", "GestureClient", "GestureTestSupport", "Recordings", "SystemCalls",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        /// The Swift client library: its stream over a socket whose peer fails under it, and
        /// `gesturectl subscribe --compact`'s collapsing (DaemonTests runs it against the daemon).
        .testTarget(
            name: "GestureClientTests",
            dependencies: [
                "GestureClient", "GestureProtocol", "GestureTestSupport", "SystemCalls",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        /// Tests of the built programs as a user runs them: `gestured` and `gesturectl`
        /// processes (`swift build` first), `systemd-socket-activate`, `systemd-analyze`,
        /// LD_PRELOAD shims, the shared corpus. DaemonTests runs the daemon in process.
        .testTarget(
            name: "ProgramTests",
            dependencies: [
                "Daemon", "GestureCore", "GestureProtocol", "GestureTestSupport", "Recordings", "SystemCalls",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "WebBridgeTests",
            dependencies: [
                "WebBridge", "ConfigFile", "GestureCore", "GestureProtocol", "GestureTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)

// No warnings, ever: every Swift target of this package fails to build on one, so a clean
// build (CI's) cannot pass with a new warning in it.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
}
