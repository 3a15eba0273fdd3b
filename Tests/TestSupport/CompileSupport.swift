import CallDir
import CallDirReader
import Foundation

// "Compile this list": most tests read indexes the compiler makes, so the helper target
// depends on CallDir (as swift-argument-parser's test helpers depend on ArgumentParser).

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

/// Compiles text lists (one number, `FIRST-LAST` range or `#` pattern per line; identification
/// lines `NUMBER,LABEL`) into `folder/name`, sorted, deduplicated and lenient, and opens the result.
package func compileIndex(_ folder: TempFolder, _ name: String, block: [String] = [], identify: [String] = []) throws -> CallDirIndex {
    try compile(block: block.isEmpty ? [] : [folder.write(name + "-b.txt", block)],
                identify: identify.isEmpty ? [] : [folder.write(name + "-i.csv", identify)], output: folder.file(name)) {
        $0.sort = true
        $0.dedupe = true
        $0.lenient = true  // synthetic numbers: what matters here is loading, not numbering plans
        $0.international = true  // E.164 digits on purpose, however national they may look
        $0.allowEmpty = true  // empty kinds and indexes are part of the property
    }
    return try CallDirIndex(path: folder.file(name))
}
