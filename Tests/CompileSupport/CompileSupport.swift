import CallDir
import CallDirReader
import Foundation

// "Compile this list" for the tests of the compiler, the CLI, the daemon, the feed and deltas:
// a target of its own, since it links CallDir (SQLite, zlib), which the phone libraries' tests
// do not (they build indexes with TestSupport's `buildIndex`, through the writer alone).

/// Runs a compile, collecting diagnostics.
@discardableResult
package func compile(_ options: CompileOptions, diagnostics: inout [Diagnostic]) throws -> CompileSummary {
    var collected: [Diagnostic] = []
    defer { diagnostics = collected }
    return try Compiler(options: options, onDiagnostic: { collected.append($0) }).run()
}

/// Compiles list files into `output` as `calldir compile` would, with the options `configure` sets.
@discardableResult
package func compile(block: [String] = [], identify: [String] = [], output: String,
             configure: (inout CompileOptions) -> Void = { _ in }) throws -> CompileSummary {
    var options = CompileOptions(output: output)
    options.blockSources = block.map { .file($0) }
    options.identifySources = identify.map { .file($0) }
    configure(&options)
    var diagnostics: [Diagnostic] = []
    return try compile(options, diagnostics: &diagnostics)
}
