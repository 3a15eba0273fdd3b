import CallDirPatch
import CallDirReader
import Foundation
import Testing
import TestSupport

/// `calldir update` verifies the patched index while the installed one is still mapped: what
/// either pass has read must not stay resident (issue 34 item 9: with 1M labels, the label
/// blocks of both indexes took `update` over its 32 MiB). Measured as the mapping's own
/// resident size (`/proc/self/smaps`), so the page cache and other tests do not count.
@Suite("Verify and patch drop the label pages they read")
struct ReleasedPagesTests {
    /// Distinct labels (so the stream store holds one per number, ~70% of the file), ascending numbers.
    static func labelled(_ count: Int, relabel: Int = 0) -> [String] {
        (0..<count).map { i in
            let n = 12_025_550_000 + Int64(i) * 7
            return "\(n),Caller \(relabel > 0 && i % relabel == 0 ? "new " : "")number \(i) of the labelled test list"
        }
    }

    /// Resident bytes of the mapping `file` reads through, or nil where smaps is unavailable.
    static func residentBytes(of file: MappedFile) -> Int? {
        guard let base = file.bytes.baseAddress,
              let data = FileHandle(forReadingAtPath: "/proc/self/smaps")?.readDataToEndOfFile(),  // size 0 to stat
              let smaps = String(data: data, encoding: .utf8) else { return nil }
        let start = String(UInt(bitPattern: base), radix: 16) + "-"
        var inMapping = false
        for line in smaps.split(separator: "\n") {
            if line.first?.isHexDigit == true, line.contains("-"), !line.hasSuffix(":") {
                inMapping = line.hasPrefix(start)
            } else if inMapping, line.hasPrefix("Rss:") {
                return Int(line.dropFirst(4).split(separator: " ")[0]).map { $0 * 1024 }
            }
        }
        return nil
    }

    @Test("verify leaves a few pages of a labelled index resident, not its label blocks")
    func verifyReleasesLabels() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        _ = try compileIndex(folder, "labels.calldir", identify: Self.labelled(40_000))
        let index = try CallDirIndex(file: MappedFile(path: folder.file("labels.calldir")), verify: true)
        guard let resident = Self.residentBytes(of: index.file) else { return }  // no /proc (not Linux)
        #expect(index.labelCount > 0)
        #expect(resident < index.file.bytes.count / 5,
                "\(resident) of \(index.file.bytes.count) bytes still resident after verify")
    }

    @Test("patch drops what it read of OLD and the delta (label blocks included) once the result is written")
    func patchReleasesOld() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let old = try compileIndex(folder, "old.calldir", identify: Self.labelled(40_000))
        let new = try compileIndex(folder, "new.calldir", identify: Self.labelled(40_000, relabel: 50))
        _ = try Differ.diff(old: old, new: new, output: folder.file("d.calldelta"), temporaryFolder: folder.path)
        let base = try CallDirIndex(file: MappedFile(path: folder.file("old.calldir")), verify: false)
        let delta = try DeltaFile(path: folder.file("d.calldelta"))
        _ = try Patcher.patch(old: base, delta: delta, output: folder.file("patched.calldir"), temporaryFolder: folder.path)
        #expect(FileManager.default.contentsEqual(atPath: folder.file("patched.calldir"), andPath: folder.file("new.calldir")))
        guard let resident = Self.residentBytes(of: base.file), let deltaResident = Self.residentBytes(of: delta.file) else { return }
        #expect(resident < base.file.bytes.count / 5, "\(resident) of OLD's \(base.file.bytes.count) bytes still resident")
        #expect(deltaResident < max(delta.file.bytes.count / 5, 16384),
                "\(deltaResident) of the delta's \(delta.file.bytes.count) bytes still resident")
    }
}
