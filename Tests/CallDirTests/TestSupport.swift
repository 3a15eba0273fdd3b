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
