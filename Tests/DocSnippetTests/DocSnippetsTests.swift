import Foundation
import TestSupport
import Testing

/// Every ```swift block of README.md, FORMAT.md and docs/ is copied into `Generated/` by
/// scripts/doc-snippets, and this target compiles those files: a block that no longer compiles
/// fails the build. This test fails when a doc was edited without running the script, so the
/// compiled copies are always the docs as they read now.
@Suite("the docs' Swift blocks")
struct DocSnippetsTests {
    static let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("Generated/ holds exactly what scripts/doc-snippets makes from the docs today",
          .enabled(if: python != nil, "python3 is not installed: scripts/doc-snippets cannot run, skipped"))
    func generatedFilesAreCurrent() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.python))
        process.arguments = [packageRoot.appendingPathComponent("scripts/doc-snippets").path, "--check"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("doc snippets up to date"), "\(text)")
    }
}
