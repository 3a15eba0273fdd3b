import Foundation
import Testing
@testable import CallDirReader
import TestSupport

/// Inputs on which a libFuzzer harness (Fuzz/, docs/FUZZING.md) failed, fed to the same API the
/// harness drives, as it fed them: as they are and resealed (every checksum recomputed).
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/fuzz")

    /// IndexReader, 2026-11-23: a forged blocked block decoded to Int64.max, which iteration
    /// yielded (the harness's `n + 1` trapped on it). Iteration now refuses a number above
    /// CallKit's valid range as damage, as verify does.
    @Test("iteration never yields a number outside 1 ... 2^63 - 2, whatever the bytes")
    func numbersInRange() throws {
        let original = fileBytes(Self.folder.appendingPathComponent("IndexReader-crash-08ec1d04.bin").path)
        #expect(original.count == 2192)
        var resealed = Forger(bytes: original)
        resealed.reseal()
        var refused = 0
        for bytes in [original, resealed.bytes] {
            try bytes.withUnsafeBytes { raw in
                let file = MappedFile(borrowing: raw, path: "fuzz-input")
                guard let index = try? CallDirIndex(file: file) else { return }
                var yielded: [Int64] = []
                do {
                    try index.forEachBlockedNumber { yielded.append($0) }
                    try index.forEachIdentifiedNumber { n, _ in yielded.append(n) }
                } catch let error as CallDirError {
                    #expect(error.code == .corruptIndex)
                    refused += 1
                }
                #expect(yielded.allSatisfy { E164.validValues.contains($0) })
                #expect(throws: CallDirError.self) { try CallDirIndex(file: file, verify: true) }
                let probes = yielded.prefix(512) + [1, Int64.max - 1, Int64.max]
                let single = probes.map { try? index.lookup($0) }
                if let batch = try? index.lookup(Array(probes)) { #expect(batch == single.compactMap { $0 }) }
            }
        }
        #expect(refused >= 1, "the resealed input's forged block should be refused")
    }
}
