import CallDir
import CallDirReader
import Foundation
@_exported import TestSupport

/// Compiles text lists (one number, `FIRST-LAST` range or `#` pattern per line; identification
/// lines `NUMBER,LABEL`) into `folder/name` and opens the result.
func compileIndex(_ folder: TempFolder, _ name: String, block: [String] = [], identify: [String] = []) throws -> CallDirIndex {
    var options = CompileOptions(output: folder.file(name))
    if !block.isEmpty { options.blockSources = [.file(folder.write(name + "-b.txt", block))] }
    if !identify.isEmpty { options.identifySources = [.file(folder.write(name + "-i.csv", identify))] }
    options.sort = true
    options.dedupe = true
    options.lenient = true  // synthetic numbers: what matters here is loading, not numbering plans
    options.allowEmpty = true  // empty kinds and indexes are part of the property
    _ = try Compiler(options: options, onDiagnostic: { _ in }).run()
    return try CallDirIndex(path: folder.file(name))
}

/// The device's entries after loading: blocking numbers, and identification numbers with labels.
struct DeviceState: Equatable {
    var blocking: [Int64] = []
    var identification: [Int64: String] = [:]
    var count: Int { blocking.count + identification.count }

    init() {}

    init(_ simulator: CallKitSimulator) {
        simulator.forEachBlockingEntry { blocking.append($0) }
        simulator.forEachIdentificationEntry { identification[$0] = $1 }
    }
}

/// Drives `loader` request after request into `simulator` until it reports done, as an app
/// and its extension would, with every request succeeding. Returns the steps.
@discardableResult
func loadFully(_ loader: DeviceLoader, into simulator: CallKitSimulator, from start: LoadCheckpoint? = nil) throws -> [LoadStep] {
    var committed = start
    var steps: [LoadStep] = []
    while steps.count < 10_000 {
        simulator.beginRequest(systemSaysIncremental: true)
        let step = try loader.loadRequest(into: simulator, resumingFrom: committed)
        let report = simulator.endRequest()
        guard report.succeeded else { throw CallDirError(.badInput, "request failed: \(report.failure!)") }
        steps.append(step)
        committed = step.checkpoint
        if step.isFinished { break }
    }
    return steps
}
