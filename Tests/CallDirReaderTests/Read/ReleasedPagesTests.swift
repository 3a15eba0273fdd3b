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
        _ = try buildIndex(folder, "labels.calldir", identify: Self.labelled(40_000))
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
        let old = try buildIndex(folder, "old.calldir", identify: Self.labelled(40_000))
        let new = try buildIndex(folder, "new.calldir", identify: Self.labelled(40_000, relabel: 50))
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

    @Test("a number cursor drops what it read within its first 4,096 blocks too (1M identified numbers are 3,907)")
    func cursorReleasesAsItReads() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        // Gaps of 997: ~1.5 bytes a number. Resident sizes move by whole page-cache folios (ext4
        // maps large ones at a fault), hence sections of MBs and loose bounds.
        let numbers = (0..<1_000_000).map { String(12_000_000_000 + Int64($0) * 997) }
        _ = try buildIndex(folder, "blocked.calldir", block: numbers)
        let index = try CallDirIndex(file: MappedFile(path: folder.file("blocked.calldir")), verify: false)
        var cursor = NumberCursor(index.blocked, path: index.path, releasingPagesOf: index.file)
        let blocks = 3_600, wanted = blocks * IndexFormat.blockSize
        var read = 0
        while read < wanted, try cursor.next() != nil { read += 1 }
        let bytesRead = index.blocked.entry(blocks).offset
        #expect(read == wanted && bytesRead > 1_000_000)
        guard let resident = Self.residentBytes(of: index.file) else { return }  // no /proc (not Linux)
        #expect(resident < bytesRead / 2, "\(resident) bytes resident after reading \(bytesRead) of a numbers section")
    }

    @Test("the label reader of a merge drops the stream store behind it as it reads (not only at the end)")
    func labelTextReleasesStreamAsItReads() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        _ = try buildIndex(folder, "labels.calldir", identify: Self.labelled(160_000))
        let index = try CallDirIndex(file: MappedFile(path: folder.file("labels.calldir")), verify: false)
        let stream = index.labels.stream
        // As `Patcher.merge` reads OLD's labels: stream labels in order (every label is distinct here).
        var labels = NumberMerge.LabelText(index: index)
        var last: [UInt8] = []
        for i in 0..<stream.count { last = try labels.text(LabelRef.stream(i)) }
        #expect(stream.count == 160_000 && stream.section.count > 1_000_000)
        #expect(String(decoding: last, as: UTF8.self) == "Caller number 159999 of the labelled test list")
        guard let resident = Self.residentBytes(of: index.file) else { return }  // no /proc (not Linux)
        #expect(resident < stream.section.count / 2,
                "\(resident) bytes resident after reading a stream store of \(stream.section.count) in order")
    }
}
