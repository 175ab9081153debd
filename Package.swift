// swift-tools-version: 6.2
import PackageDescription

/// gestured: touch gestures for Linux kiosks, served over a Unix socket.
///
/// Layout (see README "Architecture"):
/// - GestureProtocol: the wire protocol (docs/protocol.md) as Swift types, its one encoder
///   and its one strict decoder; no Foundation, no C. At the bottom: everything that reads or
///   writes protocol lines (daemon, clients, replay, drivers, benchmarks) shares it.
/// - GestureCore: pure Swift, no I/O and no C: evdev event model, contact tracking,
///   recognizers, arena, regions, configuration model, typed time and length; speaks the
///   protocol's vocabulary (gesture kinds, phases, points, timestamps).
/// - Recordings: readers for evemu, `libinput record`, evtest and `getevent -lt` text.
/// - CEvdev / EvdevInput: the only place libevdev is touched.
/// - CSystemd / Daemon: the only place libsystemd is touched; event loop, socket, broadcaster.
let package = Package(
    name: "gestured",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "gestured", targets: ["gestured"]),
        .executable(name: "gesturectl", targets: ["gesturectl"]),
        .executable(name: "gestured-e2e", targets: ["gestured-e2e"]),
        .library(name: "GestureClient", targets: ["GestureClient"]),
        .library(name: "GestureProtocol", targets: ["GestureProtocol"]),
        .library(name: "GestureCore", targets: ["GestureCore"]),
        // For the engine benchmark (Benchmarks/), which loads the corpus with the replay readers.
        .library(name: "Recordings", targets: ["Recordings"]),
        // For the fuzz harnesses (Fuzz/): the configuration reader and the daemon's request
        // reader and reload path.
        .library(name: "ConfigFile", targets: ["ConfigFile"]),
        .library(name: "Daemon", targets: ["Daemon"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
    ],
    targets: [
        .target(name: "GestureProtocol"),
        .target(name: "GestureCore", dependencies: ["GestureProtocol"]),
        /// Whole regular files read with a size limit (FIFOs, devices and symlink loops refused
        /// with clear words): configuration files and recordings.
        .target(name: "FileReading"),
        .target(name: "Recordings", dependencies: ["GestureCore", "GestureProtocol", "FileReading"]),
        .target(name: "ConfigFile", dependencies: ["GestureCore", "GestureProtocol", "FileReading", "Actions"]),
        /// `gesturectl actions`, pure: the actions model, matcher, and the overlap/timeout
        /// and reconnect policies as state machines on a virtual clock (the file is read by
        /// ConfigFile, the runner lives in gesturectl).
        .target(name: "Actions", dependencies: ["GestureCore", "GestureProtocol"]),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .target(name: "EvdevInput", dependencies: ["CEvdev", "GestureCore"]),
        .target(
            name: "Daemon",
            dependencies: [
                "CSystemd", "GestureProtocol", "GestureCore", "ConfigFile", "EvdevInput", "Recordings",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "GestureClient", dependencies: ["GestureProtocol"]),
        .executableTarget(
            name: "gestured",
            dependencies: [
                "GestureCore", "ConfigFile", "Recordings", "EvdevInput", "Daemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "gesturectl",
            dependencies: [
                "GestureCore",
                "GestureClient",
                "Actions", "ConfigFile", "EvdevInput",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "gestured-e2e",
            dependencies: ["EvdevInput", "Recordings", "GestureCore", "GestureClient"]
        ),
        .testTarget(
            name: "GestureProtocolTests",
            dependencies: [
                "GestureProtocol",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "GestureCoreTests",
            dependencies: [
                "GestureCore", "GestureProtocol",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "ConfigFileTests", dependencies: ["ConfigFile", "GestureCore"]),
        .testTarget(name: "ActionsTests", dependencies: ["Actions", "ConfigFile", "EvdevInput", "GestureCore", "GestureProtocol"]),
        .testTarget(name: "RecordingsTests", dependencies: ["Recordings", "GestureCore"]),
        .testTarget(
            name: "ReplayTests",
            dependencies: [
                "Recordings", "GestureCore", "GestureProtocol",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "EvdevInputTests", dependencies: ["EvdevInput", "GestureCore"]),
        .testTarget(name: "DaemonTests", dependencies: ["Daemon", "EvdevInput", "GestureProtocol", "GestureCore", "GestureClient", "Recordings"]),
    ]
)

// No warnings, ever: every Swift target of this package fails to build on one, so a clean
// build (CI's) cannot pass with a new warning in it.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
}
