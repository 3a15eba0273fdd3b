// swift-tools-version:6.1
import PackageDescription

// libFuzzer harnesses for calldir, in their own package so that the root package's `swift test`
// never builds them. Build and run them with `scripts/fuzz` (see docs/FUZZING.md): it builds with
// `-sanitize=fuzzer,address -enable-testing` through `toolset.json` (lld: the default gold
// linker crashes on these links). Each harness is an executable whose `main` hands control to
// libFuzzer's `LLVMFuzzerRunDriver`, so every libFuzzer flag works.
let harnesses: [(name: String, dependencies: [Target.Dependency])] = [
    ("FuzzIndexReader", [.product(name: "CallDirReader", package: "calldir")]),
    ("FuzzTextList", [.product(name: "CallDir", package: "calldir")]),
    ("FuzzVCard", [.product(name: "CallDir", package: "calldir")]),
    ("FuzzJSONList", [.product(name: "CallDir", package: "calldir")]),
    ("FuzzPlist", [.product(name: "CallDir", package: "calldir")]),
    ("FuzzGzip", [.product(name: "CallDir", package: "calldir")]),
    ("FuzzNormalizer", [.product(name: "CallDirReader", package: "calldir")]),
    ("FuzzCheckpoint", [.product(name: "CallDirReader", package: "calldir"), .product(name: "CallDirSimulator", package: "calldir")]),
    ("FuzzDelta", [.product(name: "CallDir", package: "calldir"), .product(name: "CallDirPatch", package: "calldir")]),
    ("FuzzBatchParser", [.product(name: "CallDirServer", package: "calldir"), .product(name: "NIOCore", package: "swift-nio")]),
    ("FuzzRouter", [
        .product(name: "CallDirReader", package: "calldir"),
        .product(name: "CallDirServer", package: "calldir"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
    ]),
]

let package = Package(
    name: "calldir-fuzz",
    dependencies: [
        .package(name: "calldir", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Declares libFuzzer's driver entry point.
        .target(name: "CFuzz"),
        // The driver call and the input-list harness shared by five fuzzers.
        .target(name: "FuzzSupport", dependencies: ["CFuzz", .product(name: "CallDir", package: "calldir")],
                swiftSettings: [.define("FUZZING")]),  // Forger.swift: @testable import (another package)
    ] + harnesses.map { .executableTarget(name: $0.name, dependencies: ["FuzzSupport"] + $0.dependencies) }
)
