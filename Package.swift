// swift-tools-version:6.1
import PackageDescription

// The core library `CallDir` depends only on the C libraries (zlib, SQLite), Glibc and an
// small C target (CKernels), so an app, a server or the one-shot CLI pays for
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
        // Prefetch, a branch-free search and a carry-less-multiply CRC: what Swift cannot express.
        .target(name: "CKernels"),
        .target(name: "CallDir", dependencies: ["CZlib", "CSQLite", "CKernels"]),
        .executableTarget(
            name: "calldir",
            dependencies: [
                "CallDir",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // Release builds on Linux link fully statically: no dynamic loader, libstdc++ or
            // relocations at start-up. A one-shot `calldir lookup` took 3.1 ms with the Swift
            // runtime linked statically but the C libraries dynamically, 1.4 ms like this
            // (tinycdb's `cdb -q`: 0.67 ms; docs/BENCHMARKS.md). The two libraries are what the
            // static FoundationEssentials (used by ArgumentParser) needs when the build is not
            // also given --static-swift-stdlib.
            linkerSettings: [.unsafeFlags(["-static-executable", "-l_FoundationCShims", "-l_FoundationCollections"],
                                          .when(platforms: [.linux], configuration: .release))]
        ),
        .testTarget(name: "CallDirTests", dependencies: ["CallDir", "CSQLite", "CZlib"], exclude: ["Fixtures"]),
        .testTarget(name: "CLITests", dependencies: ["CallDir"]),
    ]
)
