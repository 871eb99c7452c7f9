// swift-tools-version: 6.1
// package-benchmark suites for Quire's Poppler library and file coordination. A separate package, so `swift build` / `make test`
// in the main package never build package-benchmark. Run: `make bench`, or
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark
import PackageDescription

let package = Package(
    name: "QuireBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Quire", path: ".."),
        // MallocInterposer replaces the jemalloc backend of older releases: no libjemalloc-dev is needed.
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Issue 33's measurement of the generated server handlers (GeneratedServerFloor).
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
    ],
    targets: [
        .executableTarget(
            name: "PopplerBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "Poppler", package: "Quire"),
            ],
            path: "PopplerBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "CoordinationBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "FileCoordination", package: "Quire"),
            ],
            path: "CoordinationBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        // The same coordination figures timed call by call with the system allocator (no malloc interposer).
        .executableTarget(
            name: "CoordinationLatency",
            dependencies: [.product(name: "FileCoordination", package: "Quire")],
            path: "CoordinationLatency"
        ),
        // The cross-process figures of issue 5 (host in a child process; writers in child processes).
        .executableTarget(
            name: "CrossProcessLatency",
            dependencies: ["SocketFloor", .product(name: "FileCoordination", package: "Quire")],
            path: "CrossProcessLatency"
        ),
        // The floor CrossProcessLatency compares with: a C ping-pong over a socketpair between two processes.
        .target(name: "SocketFloor", path: "SocketFloor"),
        // The PDF worker processes against poppler in-process (issue 14): info, text, render, replacement.
        .executableTarget(
            name: "WorkerLatency",
            dependencies: [
                .product(name: "DocumentStore", package: "Quire"),
                .product(name: "Documents", package: "Quire"),
            ],
            path: "WorkerLatency"
        ),
        // The service for the side-by-side HTTP comparisons of issue 7 (compare-store.sh).
        .executableTarget(
            name: "StoreServer",
            dependencies: [
                .product(name: "DocumentStore", package: "Quire"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "StoreServer"
        ),
        // Hummingbird alone serving a file from memory: the floor under the content route (compare-store.sh).
        .executableTarget(
            name: "HummingbirdFloor",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "HummingbirdFloor"
        ),
        // Hummingbird routes against swift-openapi-hummingbird's generated handlers, the same answers from memory
        // (compare-generated-server.sh). The generator's build plugin makes the types and the server half of
        // openapi.yaml (a symbolic link to the repository's) for the two operations served.
        .executableTarget(
            name: "GeneratedServerFloor",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "GeneratedServerFloor",
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // The figures of issue 6: opening a Document against Poppler alone; write → notification latency.
        .executableTarget(
            name: "DocumentLatency",
            dependencies: [
                .product(name: "Documents", package: "Quire"),
                .product(name: "Poppler", package: "Quire"),
                .product(name: "FileCoordination", package: "Quire"),
            ],
            path: "DocumentLatency"
        ),
    ]
)
