import CallDir
import CallDirReader
import Foundation
import ListGenerator

/// Generated lists, indexes and queries for the suite, made once and kept under
/// `Benchmarks/out/suite/` (git-ignored). Same seed, same bytes: delete the folder to rebuild.
enum Fixtures {
    static let folder: String = {
        let benchmarks = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let path = benchmarks.appendingPathComponent("out/suite").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    static let seed: UInt64 = 1

    /// A sorted list of `count` numbers (seed 1); with `labels`, an identification list.
    static func list(_ count: Int, labels: Bool = false) -> String {
        let path = "\(folder)/\(labels ? "identify" : "block")-\(count).txt"
        guard !FileManager.default.fileExists(atPath: path) else { return path }
        let fd = open(path + ".tmp", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0, "cannot write \(path)")
        var writer = ListWriter(fd: fd)
        var labelRandom = SeededRandom(seed: seed ^ 0x4C41_4245_4C53)
        for n in SortedSample(count: count, seed: seed) {
            writer.number(n)
            if labels { writer.label(CallerLabels.all[CallerLabels.pick(&labelRandom)]) }
            writer.endLine()
        }
        writer.flush()
        close(fd)
        rename(path + ".tmp", path)
        return path
    }

    /// Compiles `list` into `output`; throws what the compiler throws.
    @discardableResult
    static func compile(_ list: String, labels: Bool, to output: String) throws -> CompileSummary {
        var options = CompileOptions(output: output)
        if labels { options.identifySources = [.file(list)] } else { options.blockSources = [.file(list)] }
        return try Compiler(options: options, onDiagnostic: { fatalError("unexpected diagnostic: \($0)") }).run()
    }

    /// The blocking index of `list(count)`, compiled once.
    static func index(_ count: Int) throws -> String {
        let path = "\(folder)/block-\(count).calldir"
        if !FileManager.default.fileExists(atPath: path) { try compile(list(count), labels: false, to: path) }
        return path
    }

    /// `count` numbers to look up against `list(indexCount)`: `hitPercent` % members.
    static func queries(_ count: Int, against indexCount: Int, hitPercent: Int) -> [Int64] {
        let members = Array(SortedSample(count: indexCount, seed: seed))
        return Queries.make(from: members, count: count, hitPercent: hitPercent, seed: seed)
    }
}
