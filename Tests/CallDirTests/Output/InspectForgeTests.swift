import CallDir
import CallDirReader
import Foundation
import Testing
import TestSupport

/// `calldir inspect`'s reading of forged indexes (every field set to hostile values, checksums
/// recomputed): text and JSON are written or an error is thrown, never a trap. The reader's
/// own sweep over the same forgeries is CallDirReaderTests' `ForgeTests`.
@Suite("Inspect of forged indexes")
struct InspectForgeTests {
    @Test("every field forged with valid checksums: inspect answers or throws, never traps")
    func inspectEveryField() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let path = folder.file("small.calldir")
        try buildIndex(block: (0..<600).map { String(14_085_550_000 + Int64($0) * 7) } + ["1900555####"],
                       identify: (0..<300).map { "\(18_005_550_000 + Int64($0) * 13),\($0 % 3 == 0 ? "Business \($0)" : "Caller \($0 % 5)")" }
                           + ["3316200####,Range"], output: path)
        let original = fileBytes(path)
        let fields = Forger(bytes: original).fields
        #expect(fields.count > 80)
        var inspected = 0
        for field in fields {
            let value = try #require(Forger(bytes: original).read(field.offset, field.width))
            for forgery in Forger.forgeries(of: value, width: field.width) {
                var forger = Forger(bytes: original)
                forger.write(field.offset, field.width, forgery)
                forger.reseal()
                let forged = folder.write("forged.calldir", forger.bytes)
                guard let index = try? CallDirIndex(path: forged) else { continue }
                _ = index.infoText
                _ = index.infoJSON.rendered()
                inspected += 1
            }
        }
        #expect(inspected > 100, "only \(inspected) forgeries opened: the sweep no longer reaches inspect")
    }
}
