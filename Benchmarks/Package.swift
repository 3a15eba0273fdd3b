// swift-tools-version:6.1
import PackageDescription

// Benchmarks for calldir, in their own package so that the root package's `swift test` never
// builds them. Run the suite with `swift package benchmark` from this folder; see
// docs/BENCHMARKS.md for the comparison script and the published figures.
let package = Package(
    name: "calldir-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "calldir", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Only this trait: the default traits pull in a runtime interposer that the local
        // package mirror does not carry.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Deterministic, seeded lists of North American numbers (shared by the tools below).
        .target(name: "ListGenerator"),
        // The timing tools' clock, memory figures and failure exit.
        .target(name: "BenchmarkTools"),
        // `calldir-gen`: writes generated lists and query files for scripts and users.
        .executableTarget(name: "calldir-gen", dependencies: ["ListGenerator"]),
        // `calldir-bulk`: times library lookups of a query file, for the comparison script.
        .executableTarget(name: "calldir-bulk", dependencies: ["BenchmarkTools", .product(name: "CallDirReader", package: "calldir")]),
        // `calldir-oneshot`: one lookup through the reader alone, statically linked like
        // `calldir` (oneshot.sh compares the two to show what the CLI adds at start-up).
        .executableTarget(name: "calldir-oneshot", dependencies: [.product(name: "CallDirReader", package: "calldir")],
                          linkerSettings: [.unsafeFlags(["-static-executable"], .when(platforms: [.linux], configuration: .release))]),
        // `calldir-normalize`: the normaliser on formatted numbers, with validity and type (issue 33).
        .executableTarget(name: "calldir-normalize", dependencies: [
            "BenchmarkTools", .product(name: "CallDirReader", package: "calldir"), .product(name: "CallDirNumberTypes", package: "calldir"),
        ]),
        // `calldir-feed`: times the CallKit device feed (DeviceLoader into a summing sink).
        .executableTarget(name: "calldir-feed", dependencies: ["BenchmarkTools", .product(name: "CallDirReader", package: "calldir")]),
        // `calldir-personal`: the user's layer on the phone: entries, time and peak of its requests.
        .executableTarget(name: "calldir-personal", dependencies: ["BenchmarkTools", .product(name: "CallDirReader", package: "calldir")]),
        // `calldir-launches`: requests and entries to finish a big list with N reloads per launch.
        .executableTarget(name: "calldir-launches", dependencies: [
            .product(name: "CallDirDevice", package: "calldir"),
            .product(name: "CallDirReader", package: "calldir"),
            .product(name: "CallDirSimulator", package: "calldir"),
        ]),
        // `calldir-serve-constant`: the daemon's HTTP stack answering a constant (serve-load.sh's baseline).
        .executableTarget(
            name: "calldir-serve-constant",
            dependencies: [
                .product(name: "CallDirServer", package: "calldir"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "CallDirBenchmarks",
            dependencies: [
                "ListGenerator",
                .product(name: "CallDir", package: "calldir"),
                .product(name: "CallDirReader", package: "calldir"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/CallDirBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
