import Foundation
@_exported import TestSupport
import Testing
@testable import CallDir

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

/// A valid North American number: 1, area code and exchange 200-999, line 0000-9999.
func randomNANP<G: RandomNumberGenerator>(using rng: inout G) -> Int64 {
    10_000_000_000 + Int64.random(in: 200...999, using: &rng) * 10_000_000
        + Int64.random(in: 200...999, using: &rng) * 10_000 + Int64.random(in: 0...9_999, using: &rng)
}
