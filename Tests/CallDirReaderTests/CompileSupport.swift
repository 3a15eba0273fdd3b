import CallDir
import CallDirReader
import Foundation
@_exported import TestSupport

// The reader's tests read indexes the compiler makes: "compile this list" lives here, in the
// one reader test target that depends on CallDir, not in TestSupport, which every target links
// and which depends on nothing (a compiler in it would reach the daemon's and feed's tests too).

/// Compiles list files into `output` as `calldir compile` would, with the options `configure`
/// sets; diagnostics are dropped (the tests here read the index, not the messages).
@discardableResult
func compile(block: [String] = [], identify: [String] = [], output: String,
             configure: (inout CompileOptions) -> Void = { _ in }) throws -> CompileSummary {
    var options = CompileOptions(output: output)
    options.blockSources = block.map { .file($0) }
    options.identifySources = identify.map { .file($0) }
    configure(&options)
    return try Compiler(options: options, onDiagnostic: { _ in }).run()
}

/// Compiles text lists (one number, `FIRST-LAST` range or `#` pattern per line; identification
/// lines `NUMBER,LABEL`) into `folder/name`, sorted, deduplicated and lenient, and opens the result.
func compileIndex(_ folder: TempFolder, _ name: String, block: [String] = [], identify: [String] = []) throws -> CallDirIndex {
    try compile(block: block.isEmpty ? [] : [folder.write(name + "-b.txt", block)],
                identify: identify.isEmpty ? [] : [folder.write(name + "-i.csv", identify)], output: folder.file(name)) {
        $0.sort = true
        $0.dedupe = true
        $0.lenient = true  // synthetic numbers: what matters here is loading, not numbering plans
        $0.allowEmpty = true  // empty kinds and indexes are part of the property
    }
    return try CallDirIndex(path: folder.file(name))
}
