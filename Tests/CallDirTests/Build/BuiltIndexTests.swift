import CallDir
import CallDirReader
import CompileSupport
import Foundation
import Testing
import TestSupport

/// What the compiler writes, byte for byte: the golden fixture, any row order, and the indexes
/// the phone libraries' tests build without the compiler (`buildIndex`, TestSupport), so those
/// tests read what a compile gives.
@Suite("Compiled bytes")
struct BuiltIndexTests {
    @Test("compiling the fixture lists reproduces tiny.calldir byte for byte")
    func golden() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let output = folder.file("tiny.calldir")
        try compile(block: [goldenFixtures.appendingPathComponent("tiny-blocked.txt").path],
                    identify: [goldenFixtures.appendingPathComponent("tiny-identified.txt").path], output: output)
        let golden = fileBytes(goldenFixtures.appendingPathComponent("tiny.calldir").path)
        #expect(!golden.isEmpty)
        #expect(fileBytes(output) == golden, "the index layout changed: bump the version, FORMAT.md and the fixture together")
    }

    @Test("the same entries give the same bytes, sorted or shuffled, in one file or several")
    func canonical() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        var rows = sampleEntries(2_000, seed: 7).map { "\($0.0),\($0.1) \($0.0 % 3 == 0 ? "own \($0.0)" : "")" }
        try compile(identify: [folder.write("sorted.csv", rows.joined(separator: "\n"))], output: folder.file("a.calldir"))
        var rng = SeededGenerator(seed: 8)
        rows.shuffle(using: &rng)
        let half = rows.count / 2
        try compile(identify: [folder.write("x.csv", rows[..<half].joined(separator: "\n")),
                               folder.write("y.csv", rows[half...].joined(separator: "\n"))],
                    output: folder.file("b.calldir")) { $0.sort = true; $0.memoryBudget = 1 << 20 }
        #expect(fileBytes(folder.file("a.calldir")) == fileBytes(folder.file("b.calldir")))
    }

    /// Random lines in `buildIndex`'s shapes: repeats, a repeat with another label, ranges that
    /// overlap, nest and touch, and `###` patterns.
    static func randomLines(_ rng: inout SeededGenerator, labelled: Bool) -> [String] {
        let base: Int64 = 33_100_000_000
        return (0..<Int.random(in: 0...300, using: &rng)).map { _ in
            let first = base + Int64.random(in: 0..<5_000, using: &rng)
            let text: String
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: text = "\(first)-\(first + Int64.random(in: 0..<400, using: &rng))"
            case 1: text = "\(first / 100)##"
            default: text = "\(first)"
            }
            return labelled ? "\(text),Label \(Int.random(in: 0..<12, using: &rng))" : text
        }
    }

    @Test("buildIndex writes what `compile --sort --dedupe` writes from the same lines", arguments: 0..<30)
    func builderIsACompile(seed: UInt64) throws {
        var rng = SeededGenerator(seed: 0xB0_17 &+ seed)
        let folder = TempFolder()
        defer { folder.remove() }
        let block = Self.randomLines(&rng, labelled: false), identify = Self.randomLines(&rng, labelled: true)
        try buildIndex(block: block, identify: identify, output: folder.file("built.calldir"))
        try compile(block: [folder.write("b.txt", block.joined(separator: "\n"))],
                    identify: [folder.write("i.csv", identify.joined(separator: "\n"))], output: folder.file("compiled.calldir")) {
            $0.sort = true
            $0.dedupe = true
            $0.lenient = true
            $0.international = true
            $0.allowEmpty = true
        }
        let built = fileBytes(folder.file("built.calldir"))
        #expect(built.count > 0 && built == fileBytes(folder.file("compiled.calldir")), "seed \(seed): \(block.count) and \(identify.count) lines")
    }
}
