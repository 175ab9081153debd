// swift-tools-version: 6.2
import PackageDescription

/// libFuzzer harnesses for gestured's readers of untrusted input, kept out of the main
/// package (as Benchmarks/ is) so that `swift build` and `swift test` never need libFuzzer.
/// Build and run them with `scripts/fuzz.sh`; docs/reliability.md says what each covers.
let harnesses: [(name: String, products: [String])] = [
    ("fuzz-config", ["ConfigFile", "GestureCore"]),
    ("fuzz-reload", ["Daemon", "ConfigFile", "GestureCore", "GestureProtocol", "SystemCalls"]),
    ("fuzz-request", ["GestureProtocol"]),
    ("fuzz-evemu", []),
    ("fuzz-evtest", []),
    ("fuzz-getevent", []),
    ("fuzz-libinput-record", []),
    ("fuzz-engine", ["GestureCore", "GestureProtocol", "Recordings"]),
]

let package = Package(
    name: "gestured-fuzz",
    dependencies: [
        .package(name: "gestured", path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    ],
    targets: [
        /// libFuzzer's driver entry, declared for Swift.
        .target(name: "CFuzzer"),
        /// The driver wrapper and the checks every harness shares.
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CFuzzer",
                .product(name: "Daemon", package: "gestured"),
                .product(name: "GestureCore", package: "gestured"),
                .product(name: "GestureProtocol", package: "gestured"),
                .product(name: "GestureTestSupport", package: "gestured"),
                .product(name: "Recordings", package: "gestured"),
            ]
        ),
    ] + harnesses.map { harness in
        .executableTarget(
            name: harness.name,
            dependencies: ["FuzzSupport", .product(name: "Logging", package: "swift-log")]
                + harness.products.map { .product(name: $0, package: "gestured") }
        )
    }
)
