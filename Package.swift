// swift-tools-version:6.1
import PackageDescription

// The core library `CallDir` depends only on the C libraries (zlib, SQLite), Glibc and an
// inline C header (CLookupSupport), so an app, a server or the one-shot CLI pays for
// nothing else at start-up.
let package = Package(
    name: "calldir",
    products: [
        .library(name: "CallDir", targets: ["CallDir"]),
        .executable(name: "calldir", targets: ["calldir"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // Prefetch and a branch-free search for lookups, which Swift cannot express.
        .target(name: "CLookupSupport"),
        .target(name: "CallDir", dependencies: ["CZlib", "CSQLite", "CLookupSupport"]),
        .executableTarget(
            name: "calldir",
            dependencies: [
                "CallDir",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "CallDirTests", dependencies: ["CallDir", "CSQLite", "CZlib"], exclude: ["Fixtures"]),
        .testTarget(name: "CLITests", dependencies: ["CallDir"], exclude: ["Fixtures"]),
    ]
)
