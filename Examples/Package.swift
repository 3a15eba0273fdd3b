// swift-tools-version:6.1
import PackageDescription

// The iOS side of calldir as an app team would lay it out: an extension-side target (the Call
// Directory extension's principal class), an app-side target (the updater behind the library's
// ReloadCoordinator) and what both share (the App Group folder). The CallKit glue itself is the
// library product `CallDirCallKit`, which an app depends on by URL. Link these from the app's
// and the extension's Xcode targets. Every line that needs CallKit, UIKit or the App
// Group container is inside `#if os(iOS)`; the rest compiles anywhere. scripts/ios-check
// compiles every target for arm64-apple-ios; scripts/test (what CI runs) runs it, or builds this
// package on Linux where no iPhoneOS SDK is laid out, so the examples cannot rot unseen.
let package = Package(
    name: "calldir-examples",
    platforms: [.iOS(.v15), .macOS(.v13)],
    products: [
        .library(name: "CallDirectoryExtension", targets: ["CallDirectoryExtension"]),
        .library(name: "CallDirApp", targets: ["CallDirApp"]),
    ],
    dependencies: [.package(name: "calldir", path: "..")],
    targets: [
        .target(name: "CallDirShared", dependencies: [
            .product(name: "CallDirReader", package: "calldir"),
            .product(name: "CallDirCallKit", package: "calldir"),
        ]),
        .target(name: "CallDirectoryExtension", dependencies: [
            "CallDirShared",
            .product(name: "CallDirReader", package: "calldir"),
            .product(name: "CallDirCallKit", package: "calldir"),
        ]),
        .target(name: "CallDirApp", dependencies: [
            "CallDirShared",
            .product(name: "CallDirCallKit", package: "calldir"),
            .product(name: "CallDirReader", package: "calldir"),
            .product(name: "CallDirDevice", package: "calldir"),
            .product(name: "CallDirFeed", package: "calldir"),
        ]),
    ]
)
