import Foundation
import Testing
@testable import CallDir

/// A fresh folder under /tmp, removed by `remove()`.
struct TempFolder {
    let path: String

    init() {
        var template = Array("/tmp/calldir-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: made!)
    }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        let p = file(name)
        _ = FileManager.default.createFile(atPath: p, contents: Data(text.utf8))
        return p
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Repeatable random numbers for property tests.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Runs a compile, collecting diagnostics.
@discardableResult
func compile(_ options: CompileOptions, diagnostics: inout [Diagnostic]) throws -> CompileSummary {
    var collected: [Diagnostic] = []
    defer { diagnostics = collected }
    return try Compiler(options: options, onDiagnostic: { collected.append($0) }).run()
}

@discardableResult
func compile(block: [String] = [], identify: [String] = [], output: String,
             configure: (inout CompileOptions) -> Void = { _ in }) throws -> CompileSummary {
    var options = CompileOptions(output: output)
    options.blockSources = block.map { .file($0) }
    options.identifySources = identify.map { .file($0) }
    configure(&options)
    var diagnostics: [Diagnostic] = []
    return try compile(options, diagnostics: &diagnostics)
}

func fileBytes(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path) ?? Data()) }

/// Path of ../shared/realdata next to the package, or nil when this checkout has none.
func realDataPath(_ name: String) -> String? {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let path = root.deletingLastPathComponent().appendingPathComponent("shared/realdata/\(name)").path
    return FileManager.default.fileExists(atPath: path) ? path : nil
}

/// A valid North American number: 1, area code and exchange 200-999, line 0000-9999.
func randomNANP<G: RandomNumberGenerator>(using rng: inout G) -> Int64 {
    10_000_000_000 + Int64.random(in: 200...999, using: &rng) * 10_000_000
        + Int64.random(in: 200...999, using: &rng) * 10_000 + Int64.random(in: 0...9_999, using: &rng)
}
