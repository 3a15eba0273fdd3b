// swift-tools-version:6.1
import PackageDescription

// No product's targets carry unsafe flags: SwiftPM and Xcode refuse a product with unsafe flags
// from a versioned dependency (`.package(url:..., from:)`), so an app could not depend on a
// release of calldir. `PackageManifestTests` checks it. The command-line executables link
// statically in release builds on Linux (no dynamic loader at start-up, docs/BENCHMARKS.md),
// which needs unsafe linker flags: they are added only when the environment asks for them,
// `CALLDIR_STATIC_LINK=1`, as scripts/demo and Benchmarks/scripts do (SwiftPM re-reads the
// manifest when the environment changes). A dependent's build never sets it.
let staticLink = Context.environment["CALLDIR_STATIC_LINK"] == "1"

/// Linker flags for a statically linked release executable (on Linux unless told), when asked for.
func staticLinking(_ flags: [String], platforms: [Platform]? = [.linux]) -> [LinkerSetting] {
    staticLink ? [.unsafeFlags(flags, .when(platforms: platforms, configuration: .release))] : []
}

// `CallDirReader` (format, mmap'd index, lookups, iteration, the CallKit feed) depends on
// nothing but the standard library and CKernels, so a Call Directory extension can link it.
// The compiler `CallDir` adds the C libraries (zlib, SQLite) for its inputs; an app, a server
// or the one-shot CLI pays for nothing else at start-up. Which target may import which is
// written down once, in docs/MODULES.md, and checked by `ModuleRuleTests`.
let package = Package(
    name: "calldir",
    // The oldest systems the libraries really support. iOS 13: actors and async/await
    // back-deploy to it (the reload coordinator is an actor with async API), swift-crypto is
    // CryptoKit there (Curve25519, SHA256: iOS 13), BackgroundTasks starts there, and nothing
    // else used needs more (no Mutex, Regex, Clock or Duration; `PlatformSeamTests`). macOS 13:
    // the daemon's swift-prometheus requires it (the libraries alone would need macOS 10.15).
    // An API needing more must carry `@available`.
    platforms: [.iOS(.v13), .macOS(.v13)],
    products: [
        .library(name: "CallDirReader", targets: ["CallDirReader"]),
        // A strict stand-in for CallKit's Call Directory store, for app teams' tests.
        .library(name: "CallDirSimulator", targets: ["CallDirSimulator"]),
        // libphonenumber's validity and number types as DFA tables (what --valid-only uses).
        .library(name: "CallDirNumberTypes", targets: ["CallDirNumberTypes"]),
        // Deltas, patch and the app's half (installer, reload coordinator): Darwin-portable.
        .library(name: "CallDirPatch", targets: ["CallDirPatch"]),
        // The feed follower an app links (manifest, signature, rollback and expiry checks, delta
        // or full, then the installer and coordinator): Darwin-portable, swift-crypto (CryptoKit).
        .library(name: "CallDirFeed", targets: ["CallDirFeed"]),
        // The CallKit glue an app and its extension link (`CallKitPlatform`, the principal
        // class's `CallDirectoryRequestHandler`, background loading): empty where CallKit is not.
        .library(name: "CallDirCallKit", targets: ["CallDirCallKit"]),
        .library(name: "CallDir", targets: ["CallDir"]),
        // For the benchmarks package (a server answering a constant through the same stack).
        .library(name: "CallDirServer", targets: ["CallDirServer"]),
        .executable(name: "calldir", targets: ["calldir"]),
        .executable(name: "calldir-cli", targets: ["calldir-cli"]),
        .executable(name: "calldir-serve", targets: ["calldir-serve"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The daemon's /metrics only (CallDirServer): instruments and their Prometheus exporter.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // --- signed update feed (issue 25) ---
        // Ed25519 and SHA-256 (CryptoKit on Apple platforms), and the HTTP client of `calldir-serve update`.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // --- end signed update feed ---
        // Documentation only (links nothing): `swift package generate-documentation --target
        // CallDirReader` builds a library product's DocC catalog (Sources/<Product>/<Product>.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // Prefetch, a branch-free search and a carry-less-multiply CRC: what Swift cannot express.
        .target(name: "CKernels"),
        // Darwin-portable (what an app and its Call Directory extension link): format, reads,
        // the device side. No unsafe flags, so a versioned dependency can use it.
        .target(name: "CallDirReader", dependencies: ["CKernels"]),
        // CallKitSimulator and its store: what app teams' tests link next to the reader.
        .target(name: "CallDirSimulator", dependencies: ["CallDirReader"]),
        // libphonenumber's validity and number types as DFA tables (~0.7 MB): the compiler's
        // --valid-only and --types; kept out of the reader so an extension does not link them.
        .target(name: "CallDirNumberTypes", dependencies: ["CallDirReader"]),
        // Darwin-portable, what an app links to apply a delta on the phone and install the result:
        // the delta format, diff and patch, the index encoding they share with the compiler,
        // atomic outputs, the installer and the reload coordinator. The reader and CKernels only;
        // no Foundation, Synchronization or libc outside Platform/ (`PlatformSeamTests`).
        .target(name: "CallDirPatch", dependencies: ["CallDirReader", "CKernels"]),
        // CallKit, UIKit and BackgroundTasks lines, all inside `#if canImport(CallKit)`.
        .target(name: "CallDirCallKit", dependencies: ["CallDirPatch", "CallDirReader"]),
        // The compiler. It takes the JSON reader (ByteCursor, JSONScanner) and JSONWriter from
        // the lookup front, their one home, which the daemon shares without linking the compiler.
        .target(name: "CallDir", dependencies: ["CallDirLookup", "CallDirNumberTypes", "CallDirPatch", "CallDirReader", "CZlib", "CSQLite", "CKernels"]),
        // The lookup daemon: NIO, swift-log, swift-metrics and swift-prometheus live here only, never in the core.
        // Not the compiler: no SQLite or zlib in the daemon.
        .target(
            name: "CallDirServer",
            dependencies: [
                "CallDirLookup",
                "CallDirReader",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // The lookup front the CLI and the daemon share: the one-shot lookup and its answers
        // (answer line, JSONWriter), the caller-ID policy, the JSON reader of batch bodies (and of
        // the compiler's JSON lists), stdout and stderr, the default index. The reader only.
        .target(name: "CallDirLookup", dependencies: ["CallDirReader"]),
        // `calldir`, the front: answers a plain one-shot lookup with the reader alone and execs
        // `calldir-cli` for everything else. Release builds on Linux link fully statically: no
        // dynamic loader, libstdc++ or relocations at start-up (docs/BENCHMARKS.md).
        .executableTarget(
            name: "calldir",
            dependencies: ["CallDirLookup", "CallDirReader"],
            linkerSettings: staticLinking(["-static-executable"])
        ),
        // `calldir-cli`: every command (compile, lookup -, inspect, verify, ...), argument parsing
        // and help by swift-argument-parser. Static like the front; the two libraries are what
        // the static FoundationEssentials (used by ArgumentParser) needs when the build is not
        // also given --static-swift-stdlib. (It also needs Synchronization, which nothing of ours
        // imports any more: CallDirPatch is iOS 13-portable.)
        .executableTarget(
            name: "calldir-cli",
            dependencies: [
                "CallDir",
                "CallDirPatch",
                "CallDirLookup",
                "CallDirReader",
                "CallDirServeOptions",
                "CallDirSimulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "CallDirFeedOptions",  // signed update feed (issue 25): its commands exec calldir-serve
            ],
            linkerSettings: staticLinking(["-static-executable", "-l_FoundationCShims", "-l_FoundationCollections", "-lswiftSynchronization"])
        ),
        // The options of `calldir serve`, shared by `calldir` and `calldir-serve` (ArgumentParser,
        // and the reader library for the country table behind `--country`).
        .target(
            name: "CallDirServeOptions",
            dependencies: ["CallDirReader", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The daemon's executable: `calldir serve` execs it, so `calldir` itself never links NIO.
        .executableTarget(
            name: "calldir-serve",
            dependencies: [
                "CallDirLookup",
                "CallDirPatch",
                "CallDirReader",
                "CallDirServer",
                "CallDirServeOptions",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                "CallDirFeed", "CallDirFeedTools", "CallDirFeedHTTP", "CallDirFeedOptions",  // signed update feed (issue 25)
            ],
            linkerSettings: staticLinking(["-static-stdlib"], platforms: nil) + (staticLink ? [
                .linkedLibrary("_FoundationCollections", .when(configuration: .release)),
                .linkedLibrary("_FoundationCShims", .when(configuration: .release)),
            ] : [])
        ),
        // --- signed update feed (issue 25) ---
        // The feed's format and its verification (manifest, Ed25519 signature, rollback and
        // expiry, delta-or-full choice, digests while downloading) behind a transport protocol:
        // what a phone app links next to the reader. Crypto and the reader only.
        .target(name: "CallDirFeed", dependencies: ["CallDirReader", "CallDirPatch", .product(name: "Crypto", package: "swift-crypto")]),
        // The publisher, the feed folder check and the one-shot updater: the feed plus the
        // compiler's diff and patch. No HTTP client (calldir-cli links it).
        .target(name: "CallDirFeedTools", dependencies: ["CallDirFeed", "CallDirPatch", "CallDirReader"]),
        // The HTTP transport (AsyncHTTPClient): linked by calldir-serve only, never by calldir-cli.
        .target(name: "CallDirFeedHTTP", dependencies: [
            "CallDirFeed",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        // The options of keygen, publish, update and verify --feed, shared by calldir-cli (which
        // checks them and execs calldir-serve) and calldir-serve (which runs them): swift-crypto
        // imports Foundation on Linux, so calldir-cli links neither it nor the HTTP client.
        .target(name: "CallDirFeedOptions", dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .testTarget(name: "CallDirFeedTests", dependencies: [
            "CallDirFeed", "CallDirFeedTools", "CallDirFeedHTTP", "CallDirPatch", "CallDir", "CallDirReader", "TestSupport",
        ], exclude: ["Fixtures"]),
        // --- end signed update feed ---
        // What every test target shares (a scratch folder, a seeded generator).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "CallDirReaderTests", dependencies: [
            "CallDirReader", "CallDirSimulator", "CallDirLookup", "CallDirNumberTypes", "CallDirPatch", "CallDir", "CZlib", "TestSupport",
            "CallDirFeed", "CallDirFeedTools",  // the phone following a feed (FeedPhoneTests)
        ], exclude: ["Fixtures"]),
        .testTarget(name: "CallDirLookupTests", dependencies: ["CallDirLookup", "CallDirReader", "TestSupport"]),
        .testTarget(name: "CallDirTests", dependencies: ["CallDir", "CallDirLookup", "CallDirPatch", "CallDirReader", "CallDirSimulator", "CSQLite", "CZlib", "TestSupport"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "CLITests", dependencies: ["CallDir", "CallDirPatch", "CallDirReader", "TestSupport"], exclude: ["Fixtures"]),
        // Every Swift block of README.md and docs/, copied into Generated/ by scripts/doc-snippets.
        .testTarget(name: "DocSnippetTests", dependencies: ["CallDir", "CallDirReader", "CallDirPatch", "CallDirSimulator", "TestSupport"]),
        .testTarget(
            name: "CallDirServerTests",
            dependencies: [
                "CallDir", "CallDirLookup", "CallDirReader", "CallDirServer", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
