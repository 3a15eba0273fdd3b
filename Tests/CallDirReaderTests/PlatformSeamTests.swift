import Foundation
import Testing

/// The reader library must build for an iOS Call Directory extension: only the standard
/// library and CKernels, with every libc call in one file (Platform/Syscalls.swift). We cannot
/// build for iOS here, so this test keeps the rule: it fails when a file of the reader imports
/// a system or C module outside that seam, or a module an extension cannot (or should not) link.
@Suite("Reader platform seam")
struct PlatformSeamTests {
    static let readerSources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/CallDirReader")
    static let seam = "Platform/Syscalls.swift"
    static let systemModules: Set<String> = ["Glibc", "Darwin", "Musl", "Android", "WinSDK"]
    static let forbidden: Set<String> = ["Foundation", "FoundationEssentials", "Synchronization", "Dispatch",
                                         "CZlib", "CSQLite", "CallDir"]

    static func swiftFiles() throws -> [String] {
        let root = readerSources.path
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
    }

    @Test("only Platform/Syscalls.swift imports the C library, nothing imports Foundation, zlib or SQLite")
    func importsStayBehindTheSeam() throws {
        let files = try Self.swiftFiles()
        #expect(files.contains(Self.seam))
        #expect(files.count > 10, "expected the reader's sources under \(Self.readerSources.path)")
        var offences: [String] = []
        for file in files {
            let text = try String(contentsOf: Self.readerSources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init)
                guard let at = words.firstIndex(of: "import"), at + 1 < words.count else { continue }
                guard words[..<at].allSatisfy({ $0.hasPrefix("@") }) else { continue }
                let module = words[at + 1]
                if Self.forbidden.contains(module) { offences.append("\(file): imports \(module)") }
                if Self.systemModules.contains(module), file != Self.seam { offences.append("\(file): imports \(module) outside the seam") }
                if line.contains("canImport"), file != Self.seam { offences.append("\(file): platform branch outside the seam") }
            }
        }
        #expect(offences.isEmpty, "\(offences)")
    }
}
