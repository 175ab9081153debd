// swift-tools-version: 6.1
import PackageDescription

/// The engine benchmark, kept out of the main package so that `swift build`, `swift test`
/// and CI never compile the benchmark framework. Run from this folder:
/// `swift package benchmark` (or `../scripts/benchmark.sh` from anywhere).
let package = Package(
    name: "gestured-benchmarks",
    dependencies: [
        .package(name: "gestured", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        /// The corpus in memory, the synthetic streams and the sinks, shared by both executables.
        .target(
            name: "EngineWorkloads",
            dependencies: [
                .product(name: "GestureProtocol", package: "gestured"),
                .product(name: "GestureCore", package: "gestured"),
                .product(name: "Recordings", package: "gestured"),
            ]
        ),
        .executableTarget(
            name: "EngineBenchmarks",
            dependencies: [
                "EngineWorkloads",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GestureCore", package: "gestured"),
            ],
            path: "Benchmarks/EngineBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        /// The same workloads without the benchmark framework (no malloc interposer), for
        /// `valgrind --tool=callgrind`: instruction counts per event, and where they go.
        .executableTarget(
            name: "engine-profile",
            dependencies: [
                "EngineWorkloads",
                .product(name: "GestureCore", package: "gestured"),
            ]
        ),
        /// The daemon benchmark: starts a release `gestured` and measures it from outside
        /// (delivery latency to many clients, CPU, memory, idle wakeups). Glibc only.
        .executableTarget(
            name: "daemon-bench",
            dependencies: [
                .product(name: "GestureProtocol", package: "gestured"),
                .product(name: "GestureCore", package: "gestured"),
                .product(name: "GestureTestSupport", package: "gestured"),
                .product(name: "SystemCalls", package: "gestured"),
            ]
        ),
    ]
)
