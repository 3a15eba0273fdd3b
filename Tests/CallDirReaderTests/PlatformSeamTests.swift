import Foundation
import Testing

/// The reader library must build for an iOS Call Directory extension: only the standard
/// library, CKernels and what it stands on (the number parser and the error type, which have
/// no seam at all), with every libc call in one file (Platform/Syscalls.swift). We cannot
/// build for iOS here, so this test keeps the rule: it fails when a file of the reader imports
/// a system or C module outside that seam, or a module an extension cannot (or should not) link.
///
/// What an iOS app links beside it (`CallDirWriter`, `CallDirPatch`, `CallDirDevice`: the
/// writer, deltas, the installer and coordinator) keeps the same rule with one seam: the C
/// library only in the writer's `Platform/WorkerThread.swift` (threads, clock, memcmp) and
/// `Files/TemporaryFiles.swift` (the interrupt handler), each importing it under `canImport`
/// for both Glibc and Darwin; no `pthread_t()` (a pointer on Darwin), no `Synchronization`
/// (iOS 18), no "/tmp" (the caller names the folder: the App Group container).
@Suite("Reader platform seam")
struct PlatformSeamTests {
    static let sourcesRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")
    static let readerSources = sourcesRoot.appendingPathComponent("CallDirReader")
    /// The app's targets beyond the reader, and the C library seam files in each.
    static let appTargets = ["CallDirWriter", "CallDirPatch", "CallDirDevice"]
    static let seam = "Platform/Syscalls.swift"
    static let patchSeams: Set<String> = ["CallDirWriter/Platform/WorkerThread.swift", "CallDirWriter/Files/TemporaryFiles.swift"]
    static let systemModules: Set<String> = ["Glibc", "Darwin", "Musl", "Android", "WinSDK"]
    static let forbidden: Set<String> = ["Foundation", "FoundationEssentials", "Synchronization", "Dispatch",
                                         "CZlib", "CSQLite", "CallDir"]
    /// Calls that need the C library: only in a seam file.
    static let libcCalls = ["clock_gettime(", "memcmp(", "gmtime_r(", "pthread_", "strdup(", "getenv("]

    static func swiftFiles(_ root: URL) throws -> [String] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: root.path))
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
    }

    /// The module names a file imports (`import X`, `@testable import X`).
    static func imports(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ").map(String.init)
            guard let at = words.firstIndex(of: "import"), at + 1 < words.count,
                  words[..<at].allSatisfy({ $0.hasPrefix("@") }) else { return nil }
            return words[at + 1]
        }
    }

    @Test("only Platform/Syscalls.swift imports the C library, nothing imports Foundation, zlib or SQLite")
    func importsStayBehindTheSeam() throws {
        let files = try Self.swiftFiles(Self.readerSources)
        #expect(files.contains(Self.seam))
        #expect(files.count > 10, "expected the reader's sources under \(Self.readerSources.path)")
        var offences: [String] = []
        for file in files {
            let text = try String(contentsOf: Self.readerSources.appendingPathComponent(file), encoding: .utf8)
            for module in Self.imports(text) {
                if Self.forbidden.contains(module) { offences.append("\(file): imports \(module)") }
                if Self.systemModules.contains(module), file != Self.seam { offences.append("\(file): imports \(module) outside the seam") }
            }
            if text.contains("canImport"), file != Self.seam { offences.append("\(file): platform branch outside the seam") }
        }
        #expect(offences.isEmpty, "\(offences)")
    }

    /// What the reader stands on (the number parser and the error type) is what an extension
    /// links too, with no seam at all: the standard library, each other and the parser's C tables.
    static let beneathReader: [String: Set<String>] = ["CallDirErrors": [], "CallDirNumbers": ["CallDirErrors", "CNumberTables"]]

    @Test("CallDirNumbers and CallDirErrors import no C library, Foundation or platform branch: only each other and CNumberTables")
    func numbersNeedNoPlatform() throws {
        var offences: [String] = []
        for (target, allowed) in Self.beneathReader.sorted(by: { $0.key < $1.key }) {
            let root = Self.sourcesRoot.appendingPathComponent(target)
            let files = try Self.swiftFiles(root)
            #expect(!files.isEmpty, "expected the sources of \(target) under \(root.path)")
            for file in files {
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                for module in Self.imports(text) where !allowed.contains(module) { offences.append("\(target)/\(file): imports \(module)") }
                if text.contains("canImport") { offences.append("\(target)/\(file): a platform branch") }
                for call in Self.libcCalls where text.contains(call) { offences.append("\(target)/\(file): calls \(call)...)") }
            }
        }
        #expect(offences.isEmpty, "\(offences)")
    }

    @Test("CallDirWriter, CallDirPatch, CallDirDevice: the C library only in the seam, under canImport for Glibc and Darwin; no Synchronization, pthread_t() or /tmp")
    func patchTargetIsDarwinPortable() throws {
        let files = try Self.appTargets.flatMap { target in
            try Self.swiftFiles(Self.sourcesRoot.appendingPathComponent(target)).map { target + "/" + $0 }
        }.filter { !$0.hasPrefix(Self.appleOnlyFolders[1] + "/") }  // Apple-only: `appleGlueIsAppleOnly`
        #expect(files.count > 15, "expected the sources of \(Self.appTargets) under \(Self.sourcesRoot.path)")
        #expect(Self.patchSeams.isSubset(of: Set(files)), "\(Self.patchSeams) missing from \(files)")
        var offences: [String] = []
        for file in files {
            let text = try String(contentsOf: Self.sourcesRoot.appendingPathComponent(file), encoding: .utf8)
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                .joined(separator: "\n")
            let isSeam = Self.patchSeams.contains(file)
            for module in Self.imports(code) {
                if Self.forbidden.contains(module) { offences.append("\(file): imports \(module)") }
                if Self.systemModules.contains(module), !isSeam { offences.append("\(file): imports \(module) outside the seam") }
            }
            if Self.imports(code).contains(where: Self.systemModules.contains),
               !(code.contains("#if canImport(Glibc)") || code.contains("#elseif canImport(Glibc)"))
                || !(code.contains("#if canImport(Darwin)") || code.contains("#elseif canImport(Darwin)")) {
                offences.append("\(file): imports the C library without a branch for both Glibc and Darwin")
            }
            if code.contains("pthread_t()") { offences.append("\(file): pthread_t() (a non-optional pointer on Darwin)") }
            if code.contains("Mutex<") || code.contains("Atomic<") { offences.append("\(file): Synchronization's Mutex/Atomic (iOS 18)") }
            if code.contains("\"/tmp\"") { offences.append("\(file): a /tmp default (the caller names the folder)") }
            for call in Self.libcCalls where !isSeam && code.contains(call) {
                offences.append("\(file): calls \(call)...) outside the seam")
            }
        }
        #expect(offences.isEmpty, "\(offences)")
    }

    /// The folders of Apple-only glue: the extension's (`CallDirCallKit`) and the app's
    /// (`CallDirDevice/iOS`). Each compiles empty on Linux: every file's code sits inside one
    /// `#if canImport(...)` of an Apple framework, so nothing of it can use a Linux-only API (or
    /// break the Linux build) unseen; scripts/ios-check compiles it for iOS.
    static let appleOnlyFolders = ["CallDirCallKit", "CallDirDevice/iOS"]

    @Test("CallDirCallKit and CallDirDevice/iOS: every file is wholly inside #if canImport(CallKit) or another Apple framework")
    func appleGlueIsAppleOnly() throws {
        for folder in Self.appleOnlyFolders {
            let root = Self.sourcesRoot.appendingPathComponent(folder)
            let files = try Self.swiftFiles(root)
            #expect(!files.isEmpty, "\(folder) has no Swift files")
            for file in files {
                let lines = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                    .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty && !$0.hasPrefix("//") }
                let opening = lines.first ?? ""
                #expect(["#if canImport(CallKit)", "#if canImport(BackgroundTasks)", "#if canImport(Contacts)"].contains { opening.hasPrefix($0) },
                        "\(folder)/\(file): starts with \(opening)")
                #expect(lines.last == "#endif", "\(folder)/\(file): code after the closing #endif")
                #expect(lines.dropFirst().filter { $0.hasPrefix("#if") }.isEmpty, "\(folder)/\(file): one platform branch only")
            }
        }
    }

    /// What the phone links must compile against an iOS SDK whose Swift library predates Swift
    /// 6 (iPhoneOS 16.5, the newest scripts/ios-check has), at iOS 13: no typed throws (SILGen
    /// needs `_willThrowTypedImpl`: signal 11 in emitThrow), no `Regex` (iOS 16). scripts/ios-check
    /// is the real check; this one runs where no SDK is laid out.
    @Test("the phone's modules use no typed throws and no Regex")
    func phoneModulesAvoidWhatTheSDKLacks() throws {
        let phone = ["CallDirErrors", "CallDirNumbers", "CallDirReader", "CallDirCallKit", "CallDirWriter", "CallDirPatch", "CallDirDevice", "CallDirSimulator", "CallDirFeed"]
        var offences: [String] = []
        for target in phone {
            let root = Self.sourcesRoot.appendingPathComponent(target)
            for file in try Self.swiftFiles(root) {
                let code = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                    .split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                for line in code {
                    if line.contains("throws(") { offences.append("\(target)/\(file): typed throws: \(line)") }
                    if line.contains("Regex<") || line.contains("Regex(") { offences.append("\(target)/\(file): Regex: \(line)") }
                }
            }
        }
        #expect(offences.isEmpty, "\(offences.joined(separator: "\n"))")
    }
}
