import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader
@testable import CallDirPatch
@testable import CallDirWriter
import CompileSupport
import TestSupport

/// diff and patch: patch(OLD, diff(OLD, NEW)) is NEW byte for byte, for random pairs with
/// churn in numbers, ranges (grown, shrunk, split, merged, gone) and labels; a delta for
/// another OLD is refused; deltas are checked like indexes.
@Suite("Delta files")
struct DeltaTests {
    /// OLD's and NEW's rows: NEW drops some of OLD's rows, changes some labels and ranges, adds rows.
    static func randomPair(seed: UInt64) -> (old: (block: [String], identify: [String]), new: (block: [String], identify: [String])) {
        var rng = SeededGenerator(seed: seed)
        let labels = ["Spam", "Télémarketing", "Dentist Dr. Who", "Bank Hotline", "Survey"]
        func label() -> String {
            Int.random(in: 0..<3, using: &rng) == 0 ? "Business \(Int.random(in: 0..<100_000, using: &rng))" : labels.randomElement(using: &rng)!
        }
        func range() -> (Int64, Int64) {
            let base = randomNANP(using: &rng) / 10_000 * 10_000
            return (base, base + 100 * Int64.random(in: 1...40, using: &rng) - 1)
        }
        func changed(_ r: (Int64, Int64)) -> [(Int64, Int64)] {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: return [(r.0, r.1 - 10)]                         // shrunk by 10
            case 1: return [(r.0 - 500, r.1 + 500)]                  // grown
            case 2: return [(r.0, r.0 + 49), (r.0 + 60, r.1)]        // split
            case 3: return []                                        // gone
            default: return [r, (r.1 + 1, r.1 + 1_000)]              // merged with a neighbour
            }
        }
        let numbers = (0..<(300 + Int(seed) * 40)).map { _ in randomNANP(using: &rng) }
        let ranges = (0..<12).map { _ in range() }
        var old = (block: [String](), identify: [String]())
        var new = (block: [String](), identify: [String]())
        for (i, n) in numbers.enumerated() {
            let kindIsBlock = i % 2 == 0
            let text = kindIsBlock ? "\(n)" : "\(n),\(label())"
            if kindIsBlock { old.block.append(text) } else { old.identify.append(text) }
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: break  // removed
            case 1 where !kindIsBlock: new.identify.append("\(n),\(label())")  // label may change
            default: if kindIsBlock { new.block.append(text) } else { new.identify.append(text) }
            }
        }
        for _ in 0..<30 { new.block.append("\(randomNANP(using: &rng))"); new.identify.append("\(randomNANP(using: &rng)),\(label())") }
        for (i, r) in ranges.enumerated() {
            let rangeLabel = label()
            let row = { (r: (Int64, Int64), kind: Int, label: String) -> String in kind == 0 ? "\(r.0)-\(r.1)" : "\(r.0)-\(r.1),\(label)" }
            if i % 2 == 0 { old.block.append(row(r, 0, "")) } else { old.identify.append(row(r, 1, rangeLabel)) }
            let next = Bool.random(using: &rng) ? changed(r) : [r]
            let nextLabel = Int.random(in: 0..<4, using: &rng) == 0 ? label() : rangeLabel
            for piece in next {
                if i % 2 == 0 { new.block.append(row(piece, 0, "")) } else { new.identify.append(row(piece, 1, nextLabel)) }
            }
        }
        return (old, new)
    }

    static func compileRows(_ rows: (block: [String], identify: [String]), name: String, in folder: TempFolder) throws -> String {
        let path = folder.file("\(name).calldir")
        try compile(block: [folder.write("\(name)-b.txt", rows.block.joined(separator: "\n") + "\n")],
                    identify: [folder.write("\(name)-i.csv", rows.identify.joined(separator: "\n") + "\n")], output: path) {
            $0.sort = true
            $0.dedupe = true
        }
        return path
    }

    /// OLD opened, NEW's bytes, and the delta's bytes (at d.delta) of a random pair.
    static func randomDelta(seed: UInt64, in folder: TempFolder) throws -> (old: CallDirIndex, new: [UInt8], delta: [UInt8]) {
        let (oldRows, newRows) = randomPair(seed: seed)
        let old = try compileRows(oldRows, name: "old", in: folder)
        let new = try compileRows(newRows, name: "new", in: folder)
        _ = try Differ.diff(old: CallDirIndex(path: old), new: CallDirIndex(path: new), output: folder.file("d.delta"), temporaryFolder: folder.path)
        return (try CallDirIndex(path: old), fileBytes(new), fileBytes(folder.file("d.delta")))
    }

    @Test("patch(OLD, diff(OLD, NEW)) == NEW byte for byte", arguments: 1...12)
    func roundTrip(seed: UInt64) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (oldRows, newRows) = Self.randomPair(seed: seed)
        let old = try Self.compileRows(oldRows, name: "old", in: folder)
        let new = try Self.compileRows(newRows, name: "new", in: folder)
        let summary = try Differ.diff(old: CallDirIndex(path: old), new: CallDirIndex(path: new), output: folder.file("d.delta"),
                                      temporaryFolder: folder.path)
        #expect(summary.removedBlocked > 0 && summary.addedIdentified > 0 && summary.removedRanges + summary.addedRanges > 0)
        let delta = try DeltaFile(path: folder.file("d.delta"), verify: true)
        #expect(delta.oldChecksum == (try CallDirIndex(path: old).checksum) && delta.summary.changedEntries == summary.changedEntries)
        _ = try Patcher.patch(old: CallDirIndex(path: old), delta: delta, output: folder.file("patched.calldir"),
                              temporaryFolder: folder.path)
        #expect(fileBytes(folder.file("patched.calldir")) == fileBytes(new))
        // Diffing an index with itself gives an empty delta, which patches to the same bytes.
        let same = try Differ.diff(old: CallDirIndex(path: new), new: CallDirIndex(path: new), output: folder.file("e.delta"), temporaryFolder: folder.path)
        #expect(same.changedEntries == 0 && same.removedRanges == 0 && same.addedRanges == 0)
    }

    @Test("only what changed is in the delta: a label change is one removal and one addition")
    func minimal() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let old = try Self.compileRows((["14085550000", "14085550001", "1900555####"], ["18005550100,Spam", "18005550101,Survey"]),
                                       name: "old", in: folder)
        let new = try Self.compileRows((["14085550001", "14085550002", "1900555####"], ["18005550100,Spam", "18005550101,Bank"]),
                                       name: "new", in: folder)
        let s = try Differ.diff(old: CallDirIndex(path: old), new: CallDirIndex(path: new), output: folder.file("d.delta"), temporaryFolder: folder.path)
        #expect((s.removedBlocked, s.addedBlocked, s.removedIdentified, s.addedIdentified, s.removedRanges, s.addedRanges)
                == (1, 1, 1, 1, 0, 0))
    }

    @Test("a delta for another OLD is refused and nothing is written")
    func wrongOld() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (oldRows, newRows) = Self.randomPair(seed: 3)
        let old = try Self.compileRows(oldRows, name: "old", in: folder)
        let new = try Self.compileRows(newRows, name: "new", in: folder)
        _ = try Differ.diff(old: CallDirIndex(path: old), new: CallDirIndex(path: new), output: folder.file("d.delta"), temporaryFolder: folder.path)
        let error = #expect(throws: CallDirError.self) {
            try Patcher.patch(old: CallDirIndex(path: new), delta: DeltaFile(path: folder.file("d.delta")),
                              output: folder.file("out.calldir"), temporaryFolder: folder.path)
        }
        #expect(error?.code == .deltaMismatch && error?.message.contains("applies to the index with checksum") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.calldir")))
        // An index is not a delta, and a delta is not an index.
        #expect(throws: CallDirError.self) { try DeltaFile(path: old) }
        #expect(throws: CallDirError.self) { try CallDirIndex(path: folder.file("d.delta")) }
    }

    @Test("versions: diff refuses a NEW in an older index format (patch could not rebuild it); a 1.0 delta is refused")
    func versions() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let fixtures = goldenFixtures
        let old = try CallDirIndex(path: fixtures.appendingPathComponent("tiny.calldir").path)
        let older = try CallDirIndex(path: fixtures.appendingPathComponent("tiny-2.1.calldir").path)
        let error = #expect(throws: CallDirError.self) { try Differ.diff(old: old, new: older, output: folder.file("d.delta"), temporaryFolder: folder.path) }
        #expect(error?.code == .unsupportedVersion && error?.message.contains("recompile NEW") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: folder.file("d.delta")))
        // An older OLD is fine: patch reads its entries, not its bytes.
        let path = folder.file("e.delta")
        _ = try Differ.diff(old: older, new: old, output: path, temporaryFolder: folder.path)
        _ = try Patcher.patch(old: older, delta: DeltaFile(path: path), output: folder.file("new.calldir"), temporaryFolder: folder.path)
        #expect(fileBytes(folder.file("new.calldir")) == fileBytes(old.path))
        var forger = Forger(bytes: fileBytes(path))
        forger.write(8, 2, 1)  // delta format 1.0: its label stores had no step tables
        forger.reseal()
        let refused = #expect(throws: CallDirError.self) { try DeltaFile(path: folder.write("v1.delta", forger.bytes)) }
        #expect(refused?.code == .unsupportedVersion && refused?.message.contains("diff the two indexes again") == true)
    }

    @Test("every byte flip of a delta: verify refuses it; patch refuses it or still writes NEW exactly")
    func flips() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (oldIndex, expected, original) = try Self.randomDelta(seed: 5, in: folder)
        var refused = 0
        for offset in stride(from: 0, to: original.count, by: 7) {
            var bytes = original
            bytes[offset] ^= 0x10
            let path = folder.file("flipped.delta")
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            #expect(throws: CallDirError.self, "flip at \(offset) passed verify") { try DeltaFile(path: path, verify: true) }
            do {
                _ = try Patcher.patch(old: oldIndex, delta: DeltaFile(path: path), output: folder.file("out.calldir"), temporaryFolder: folder.path)
                #expect(fileBytes(folder.file("out.calldir")) == expected, "flip at \(offset) patched to other bytes")
            } catch is CallDirError {
                refused += 1
            }
        }
        #expect(refused > original.count / 7 / 2)
    }

    @Test("every field of a delta forged with valid checksums: errors, or a patch that is NEW exactly, never a trap")
    func forgeEveryField() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (oldIndex, expected, original) = try Self.randomDelta(seed: 2, in: folder)
        let fields = Forger(bytes: original).fields
        #expect(fields.count > 80, "the sweep found only \(fields.count) fields")
        var forged = 0, refused = 0
        for field in fields {
            let value = Forger(bytes: original).read(field.offset, field.width)!
            for forgery in Forger.forgeries(of: value, width: field.width) {
                var forger = Forger(bytes: original)
                forger.write(field.offset, field.width, forgery)
                forger.reseal()
                let path = folder.file("forged.delta")
                _ = FileManager.default.createFile(atPath: path, contents: Data(forger.bytes))
                forged += 1
                if let delta = try? DeltaFile(path: path) { _ = delta.infoText; _ = try? DeltaFile(path: path, verify: true) }
                do {
                    _ = try Patcher.patch(old: oldIndex, delta: DeltaFile(path: path), output: folder.file("out.calldir"), temporaryFolder: folder.path)
                    #expect(fileBytes(folder.file("out.calldir")) == expected, "\(field) = \(forgery) patched to other bytes")
                } catch is CallDirError {
                    refused += 1
                }
            }
        }
        #expect(forged > 800 && refused > forged / 2, "refused \(refused) of \(forged)")
    }
}
