// swift-tools-version:6.1
import PackageDescription

// The core library `CallDir` depends only on the C libraries (zlib, SQLite) and Glibc,
// so an app, a server or the one-shot CLI pays for nothing else at start-up.
let package = Package(
    name: "calldir",
    products: [
        .library(name: "CallDir", targets: ["CallDir"]),
        .executable(name: "calldir", targets: ["calldir"]),
        .executable(name: "calldir-serve", targets: ["calldir-serve"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "CallDir", dependencies: ["CZlib", "CSQLite"]),
        // The lookup daemon: NIO and swift-log live here only, never in the core.
        .target(
            name: "CallDirServer",
            dependencies: [
                "CallDir",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "calldir",
            dependencies: [
                "CallDir",
                "CallDirServeOptions",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: [
                .unsafeFlags(["-static-stdlib"], .when(configuration: .release)),
                // FoundationEssentials (used by swift-argument-parser) needs these two when the
                // standard library is linked statically; without them a release build fails to link.
                .linkedLibrary("_FoundationCollections", .when(configuration: .release)),
                .linkedLibrary("_FoundationCShims", .when(configuration: .release)),
            ]
        ),
        // The options of `calldir serve`, shared by `calldir` and `calldir-serve` (ArgumentParser only).
        .target(
            name: "CallDirServeOptions",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The daemon's executable: `calldir serve` execs it, so `calldir` itself never links NIO.
        .executableTarget(
            name: "calldir-serve",
            dependencies: [
                "CallDir",
                "CallDirServer",
                "CallDirServeOptions",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: [
                .unsafeFlags(["-static-stdlib"], .when(configuration: .release)),
                .linkedLibrary("_FoundationCollections", .when(configuration: .release)),
                .linkedLibrary("_FoundationCShims", .when(configuration: .release)),
            ]
        ),
        .testTarget(name: "CallDirTests", dependencies: ["CallDir", "CSQLite", "CZlib"]),
        .testTarget(name: "CLITests", dependencies: ["CallDir"]),
        .testTarget(
            name: "CallDirServerTests",
            dependencies: [
                "CallDir", "CallDirServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
