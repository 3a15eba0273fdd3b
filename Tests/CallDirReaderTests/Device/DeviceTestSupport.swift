import CallDir
import CallDirReader
import Foundation

/// A fresh folder under /tmp, removed by `remove()`.
struct DeviceTempFolder {
    let path: String

    init() {
        var template = Array("/tmp/calldir-device-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: made!)
    }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ lines: [String]) -> String {
        let p = file(name)
        _ = FileManager.default.createFile(atPath: p, contents: Data((lines.joined(separator: "\n") + "\n").utf8))
        return p
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Repeatable random numbers (splitmix64).
struct DeviceRNG: RandomNumberGenerator {
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

/// Compiles text lists (one number, `FIRST-LAST` range or `#` pattern per line; identification
/// lines `NUMBER,LABEL`) into `folder/name` and opens the result.
func compileIndex(_ folder: DeviceTempFolder, _ name: String, block: [String] = [], identify: [String] = []) throws -> CallDirIndex {
    var options = CompileOptions(output: folder.file(name))
    if !block.isEmpty { options.blockSources = [.file(folder.write(name + "-b.txt", block))] }
    if !identify.isEmpty { options.identifySources = [.file(folder.write(name + "-i.csv", identify))] }
    options.sort = true
    options.dedupe = true
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
