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

// Four products' worth of code: what a phone links (an app and its Call Directory extension),
// the compiler a CI runs, the lookup daemon a PBX asks (with the feed's publisher), and what
// they share (the reader, the writer, deltas). docs/MODULES.md opens with this map and holds
// the rule of which target may import which (`ModuleRuleTests`).
let package = Package(
    name: "calldir",
    // The oldest systems the libraries really support. iOS 13: actors and async/await
    // back-deploy to it (the reload coordinator is an actor with async API), swift-crypto is
    // CryptoKit there (Curve25519, SHA256: iOS 13), BackgroundTasks starts there, and nothing
    // else used needs more (no Mutex, Regex, Clock or Duration): scripts/ios-check compiles every
    // phone product for arm64-apple-ios13.0 against Apple's SDK (`PlatformSeamTests` keeps the
    // textual part of the rule where no SDK is laid out). macOS 13:
    // the daemon's swift-prometheus requires it (the libraries alone would need macOS 10.15).
    // An API needing more must carry `@available`.
    platforms: [.iOS(.v13), .macOS(.v13)],
    products: [
        // Phone, by Xcode target (docs/MODULES.md): the Call Directory extension links
        // `CallDirCallKit` (its request handler) and `CallDirReader`, nothing else, all of it
        // app-extension-safe; the app adds `CallDirDevice` (installer, reload coordinator, and its
        // CallKit, UIKit, BackgroundTasks and Contacts glue) and `CallDirFeed`; app teams' tests
        // `CallDirSimulator`. scripts/ios-check compiles each for arm64-apple-ios.
        .library(name: "CallDirReader", targets: ["CallDirReader"]),
        .library(name: "CallDirCallKit", targets: ["CallDirCallKit"]),
        .library(name: "CallDirDevice", targets: ["CallDirDevice"]),
        .library(name: "CallDirFeed", targets: ["CallDirFeed"]),
        .library(name: "CallDirSimulator", targets: ["CallDirSimulator"]),
        // Shared by the phone and CI: deltas (diff, patch) over the index writer.
        .library(name: "CallDirPatch", targets: ["CallDirPatch"]),
        // CI: the compiler, and libphonenumber's validity and number types as DFA tables.
        .library(name: "CallDir", targets: ["CallDir"]),
        .library(name: "CallDirNumberTypes", targets: ["CallDirNumberTypes"]),
        .executable(name: "calldir", targets: ["calldir"]),
        .executable(name: "calldir-cli", targets: ["calldir-cli"]),
        // PBX: the lookup daemon's library (the benchmarks package serves a constant through
        // it) and the executable that runs the daemon and the feed commands.
        .library(name: "CallDirServer", targets: ["CallDirServer"]),
        .executable(name: "calldir-serve", targets: ["calldir-serve"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The daemon's /metrics only (CallDirServer): instruments and their Prometheus exporter.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The signed feed: Ed25519 and SHA-256 (CryptoKit on Apple platforms), and the HTTP
        // client of `calldir-serve`'s update and --follow.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Documentation only (links nothing): `swift package generate-documentation --target
        // CallDirReader` builds a library product's DocC catalog (Sources/<Product>/<Product>.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: Shared: the error type, the numbers, the format and its reader, the writer, deltas, C kernels

        // `CallDirError`, the one error type every module throws: beneath the numbers and the
        // reader, so that both throw it and neither imports the other for it.
        .target(name: "CallDirErrors"),
        // The number parser's generated tables (DFAs, rules by first digits) as read-only C data:
        // Swift would build them at run time.
        .target(name: "CNumberTables"),
        // The number parser: a field of a list, a caller ID or a `--country` read as libphonenumber
        // reads it, into E.164 digits or a `NumberRange`, or a reason it is not one. Beneath the
        // reader (which stores and looks up ranges, and whose user's layer normalises numbers);
        // the compiler, the lookup front and the daemon parse with it. The standard library only
        // (`PlatformSeamTests`), so an extension links it.
        .target(name: "CallDirNumbers", dependencies: ["CallDirErrors", "CNumberTables"]),
        // Prefetch, a branch-free search and a carry-less-multiply CRC: what Swift cannot express.
        .target(name: "CKernels"),
        // What an extension links: format, reads, lookups, the extension's side of loading.
        // The standard library, the numbers and CKernels only (`PlatformSeamTests`), no unsafe flags.
        .target(name: "CallDirReader", dependencies: ["CallDirErrors", "CallDirNumbers", "CKernels"]),
        // The index writer: encoding (numbers, labels, sections), atomic outputs, temporaries.
        // The compiler writes an index with it, the patch on a phone too: Darwin-portable, no
        // Foundation, Synchronization or libc outside its seam (`PlatformSeamTests`).
        .target(name: "CallDirWriter", dependencies: ["CallDirNumbers", "CallDirReader", "CKernels"]),
        // Deltas: the delta format, diff and patch (over the writer). Darwin-portable.
        .target(name: "CallDirPatch", dependencies: ["CallDirNumbers", "CallDirReader", "CallDirWriter"]),

        // MARK: Phone: the app and its Call Directory extension

        // The app's half of an update: the installer and the reload coordinator, Darwin-portable;
        // in iOS/, the app's CallKit manager, UIKit background time, BackgroundTasks and
        // Contacts glue, each inside `#if canImport(...)`. Never linked by the extension:
        // `UIApplication.shared` and `BGTaskScheduler.register` are not extension-safe.
        .target(name: "CallDirDevice", dependencies: ["CallDirPatch", "CallDirReader", "CallDirWriter"]),
        // The extension's CallKit glue (its request handler), inside `#if canImport(CallKit)`;
        // app-extension-safe, and the reader is all it links.
        .target(name: "CallDirCallKit", dependencies: ["CallDirReader"]),
        // The feed follower an app links: manifest, signature, rollback and expiry checks, delta
        // or full, behind a transport protocol, then the installer. swift-crypto (CryptoKit).
        .target(name: "CallDirFeed", dependencies: [
            "CallDirDevice", "CallDirPatch", "CallDirReader", "CallDirWriter",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // `CallKitSimulator`, a strict stand-in for CallKit's store, for app teams' tests and ours.
        .target(name: "CallDirSimulator", dependencies: ["CallDirReader"]),

        // MARK: CI: the compiler and the command line

        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // libphonenumber's validity and number types as DFA tables (~0.7 MB): the compiler's
        // --valid-only and --types; kept out of the numbers and the reader so an extension does
        // not link them.
        .target(name: "CallDirNumberTypes", dependencies: ["CallDirNumbers"]),
        // The compiler: inputs (zlib, SQLite), sort, validation, exports. Its JSON lists are
        // read by the reader's JSON core, which the feed, the CLI and the daemon share.
        .target(name: "CallDir", dependencies: [
            "CallDirNumberTypes", "CallDirNumbers", "CallDirPatch", "CallDirReader", "CallDirWriter", "CZlib", "CSQLite", "CKernels",
        ]),
        // The lookup front `calldir`, `calldir-cli` and the daemon share: the one-shot lookup
        // and its answers, the caller-ID policy, batch bodies, stdout and stderr.
        .target(name: "CallDirLookup", dependencies: ["CallDirNumbers", "CallDirReader"]),
        // The command-line options `calldir-cli` checks and `calldir-serve` runs (serve, keygen,
        // publish, update): ArgumentParser, and the numbers for the country table of `--country`.
        .target(name: "CallDirOptions", dependencies: [
            "CallDirNumbers", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // `calldir`, the front: answers a plain one-shot lookup with the reader alone and execs
        // `calldir-cli` for everything else. Release builds on Linux link fully statically: no
        // dynamic loader, libstdc++ or relocations at start-up (docs/BENCHMARKS.md).
        .executableTarget(
            name: "calldir",
            dependencies: ["CallDirLookup", "CallDirReader"],
            linkerSettings: staticLinking(["-static-executable"])
        ),
        // `calldir-cli`: every command (compile, lookup -, inspect, verify, ...), argument parsing
        // and help by swift-argument-parser; serve and the feed commands exec `calldir-serve`, so
        // it links neither NIO nor swift-crypto. Static like the front; the two libraries are what
        // the static FoundationEssentials (used by ArgumentParser) needs when the build is not
        // also given --static-swift-stdlib (and Synchronization, which nothing of ours imports).
        .executableTarget(
            name: "calldir-cli",
            dependencies: [
                "CallDir", "CallDirLookup", "CallDirNumbers", "CallDirOptions", "CallDirPatch", "CallDirReader", "CallDirSimulator",
                "CallDirWriter", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: staticLinking(["-static-executable", "-l_FoundationCShims", "-l_FoundationCollections", "-lswiftSynchronization"])
        ),

        // MARK: PBX: the lookup daemon and the feed's serving side

        // The lookup daemon: NIO, swift-log, swift-metrics and swift-prometheus live here only.
        // Not the compiler: no SQLite or zlib in the daemon.
        .target(
            name: "CallDirServer",
            dependencies: [
                "CallDirLookup",
                "CallDirNumbers",
                "CallDirReader",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // The feed's serving side: the publisher, delta composition, the feed folder check, the
        // one-shot updater and its HTTP transport (AsyncHTTPClient). A phone links none of it.
        .target(name: "CallDirFeedTools", dependencies: [
            "CallDirFeed", "CallDirPatch", "CallDirReader", "CallDirWriter",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        // `calldir-serve`, the network executable: the lookup daemon (`calldir serve`) and the
        // signed feed's commands (keygen, publish, update, verify --feed), each exec'd by
        // `calldir-cli` with the same arguments so that it alone links NIO, swift-crypto and
        // the HTTP client. Never the compiler: no SQLite or zlib.
        .executableTarget(
            name: "calldir-serve",
            dependencies: [
                "CallDirFeed", "CallDirFeedTools", "CallDirLookup", "CallDirOptions", "CallDirPatch", "CallDirReader",
                "CallDirServer", "CallDirWriter",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: staticLinking(["-static-stdlib"], platforms: nil) + (staticLink ? [
                .linkedLibrary("_FoundationCollections", .when(configuration: .release)),
                .linkedLibrary("_FoundationCShims", .when(configuration: .release)),
            ] : [])
        ),

        // MARK: Tests

        // One test target per library (and CLITests for the executables, DocSnippetTests for
        // the docs' code); TestSupport holds what they share: a scratch folder, a seeded
        // generator, the index builder, the forger, the device and phone rigs. It links only
        // phone libraries, as the numbers', reader's, device's and simulator's tests do (scripts/ios-check
        // type-checks them for iOS); CompileSupport, the compile helper, links CallDir.
        .target(name: "TestSupport", dependencies: ["CallDirDevice", "CallDirReader", "CallDirSimulator", "CallDirWriter"], path: "Tests/TestSupport"),
        .target(name: "CompileSupport", dependencies: ["CallDir", "CallDirReader"], path: "Tests/CompileSupport"),
        .testTarget(name: "CallDirNumbersTests", dependencies: ["CallDirNumbers", "TestSupport"]),
        .testTarget(name: "CallDirReaderTests", dependencies: [
            "CallDirReader", "CallDirNumberTypes", "CallDirPatch", "CallDirSimulator", "CallDirWriter", "TestSupport",
        ], exclude: ["Fixtures"]),
        .testTarget(name: "CallDirWriterTests", dependencies: ["CallDirWriter", "CallDir", "CallDirSimulator", "CompileSupport", "TestSupport"]),
        .testTarget(name: "CallDirPatchTests", dependencies: ["CallDirPatch", "CallDirWriter", "CallDirReader", "CallDir", "CompileSupport", "TestSupport"]),
        .testTarget(name: "CallDirDeviceTests", dependencies: [
            "CallDirDevice", "CallDirPatch", "CallDirReader", "CallDirSimulator", "CallDirWriter", "TestSupport",
        ]),
        .testTarget(name: "CallDirSimulatorTests", dependencies: ["CallDirSimulator", "CallDirReader", "TestSupport"]),
        .testTarget(name: "CallDirFeedTests", dependencies: [
            "CallDirFeed", "CallDirFeedTools", "CallDirDevice", "CallDirPatch", "CallDirReader", "CallDirSimulator", "CallDir", "CompileSupport",
            "TestSupport",
        ], exclude: ["Fixtures"]),
        .testTarget(name: "CallDirLookupTests", dependencies: ["CallDirLookup", "CallDirReader", "TestSupport"]),
        .testTarget(name: "CallDirTests", dependencies: [
            "CallDir", "CallDirLookup", "CallDirNumberTypes", "CallDirPatch", "CallDirReader", "CallDirSimulator", "CallDirWriter", "CSQLite", "CZlib",
            "CompileSupport", "TestSupport",
        ], exclude: ["Fixtures"]),
        .testTarget(
            name: "CallDirServerTests",
            dependencies: [
                "CallDir", "CallDirLookup", "CallDirReader", "CallDirServer", "CompileSupport", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "CLITests", dependencies: ["CallDir", "CallDirPatch", "CallDirReader", "CompileSupport", "TestSupport"], exclude: ["Fixtures"]),
        // Every Swift block of README.md and docs/, copied into Generated/ by scripts/doc-snippets.
        .testTarget(name: "DocSnippetTests", dependencies: ["CallDir", "CallDirReader", "CallDirDevice", "CallDirPatch", "CallDirSimulator", "CompileSupport", "TestSupport"]),
    ]
)
