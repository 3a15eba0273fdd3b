import Foundation
import Testing
@testable import CallDirReader
import TestSupport

/// Format 2.1's directory pages: opening reads the page tables only, a lookup checks the one
/// page it needs, and damage in a page is reported by the lookups that need it.
@Suite("Directory pages")
struct DirectoryPagesTests {
    /// 40,000 blocked numbers (157 blocks: pages of 64, 64 and 29) and 20,000 identified ones.
    func makeIndex(_ folder: TempFolder) throws -> (path: String, blocked: [Int64], identified: [Int64]) {
        let blocked = (0..<40_000).map { 14_085_000_000 + Int64($0) * 11 }
        let identified = (0..<20_000).map { 18_005_000_000 + Int64($0) * 17 }
        let block = blocked.map(String.init)
        let identify = identified.map { "\($0),Caller \($0 % 97)" }
        let path = folder.file("paged.calldir")
        try buildIndex(block: block, identify: identify, output: path)
        return (path, blocked, identified)
    }

    func checkedPages(_ set: NumberSetReader) -> [Int] {
        (0..<set.pages.count).filter { set.pages.checked.contains($0) }
    }

    @Test("opening checks no page; a lookup checks only the page it needs; every page answers right")
    func lazyPages() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (path, blocked, identified) = try makeIndex(folder)
        let index = try CallDirIndex(path: path)
        #expect(index.blocked.pages.count == 3 && index.identified.pages.count == 2)
        #expect(checkedPages(index.blocked).isEmpty && checkedPages(index.identified).isEmpty)
        // Block 64 starts page 1: its first number is blocked[64 * 256].
        #expect(try index.lookup(blocked[64 * 256 + 5]).blocked == .exact)
        // The number lies below every identification number: "absent" there is answered only
        // once the identified set's page 0 is checked (issue 45: a forged table fails closed).
        #expect(checkedPages(index.blocked) == [1] && checkedPages(index.identified) == [0])
        #expect(try index.lookup(blocked[64 * 256 + 5] + 1).blocked == nil)
        #expect(checkedPages(index.blocked) == [1])
        // Every number of both kinds, one by one and in batches, against a verified open.
        let verified = try CallDirIndex(path: path, verify: true)
        #expect(checkedPages(verified.blocked) == [0, 1, 2] && checkedPages(verified.identified) == [0, 1])
        let blockedProbes: [Int64] = stride(from: 0, to: blocked.count, by: 97).flatMap { [blocked[$0], blocked[$0] + 1] }
        let identifiedProbes: [Int64] = stride(from: 0, to: identified.count, by: 89).flatMap { [identified[$0], identified[$0] - 1] }
        let edges: [Int64] = [1, 14_084_999_999, blocked[blocked.count - 1] + 11, identified[identified.count - 1] + 1]
        let probes = blockedProbes + identifiedProbes + edges
        let fresh = try CallDirIndex(path: path)
        #expect(try probes.map { try fresh.lookup($0) } == verified.lookup(probes))
        #expect(try CallDirIndex(path: path).lookup(probes) == verified.lookup(probes))
        #expect(try probes.filter { try fresh.lookup($0).blocked != nil }.count == blocked.count / 97 + 1)
    }

    @Test("a damaged page is reported by the lookups that need it; the other pages still answer")
    func damagedPage() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (path, blocked, _) = try makeIndex(folder)
        var forger = Forger(bytes: fileBytes(path))
        let directory = try #require(forger.section(3))
        // Entry 70 (page 1): flip a bit of its first number; no reseal, so the page CRC fails.
        forger.bytes[directory.offset + 16 + 16 * 70] ^= 0x10
        let damaged = folder.file("damaged.calldir")
        _ = FileManager.default.createFile(atPath: damaged, contents: Data(forger.bytes))
        let index = try CallDirIndex(path: damaged)
        #expect(try index.lookup(blocked[100]).blocked == .exact)  // page 0
        #expect(try index.lookup(blocked[39_000]).blocked == .exact)  // page 2
        for probe in [blocked[64 * 256], blocked[70 * 256 + 3]] {
            #expect { try index.lookup(probe) } throws: { error in
                (error as? CallDirError)?.message.contains("blocked-numbers: directory page 1 fails its checksum") == true
            }
            #expect(throws: CallDirError.self) { try index.lookup([probe]) }
        }
        #expect(throws: CallDirError.self) { try index.forEachBlockedNumber { _ in } }
        #expect(throws: CallDirError.self) { try CallDirIndex(path: damaged, verify: true) }
    }

    @Test("forged pages with valid checksums: entries out of order, a table that disagrees with its directory")
    func forgedPages() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (path, blocked, _) = try makeIndex(folder)
        let original = fileBytes(path)
        let directory = try #require(Forger(bytes: original).section(3))
        let table = try #require(Forger(bytes: original).section(12))
        func forged(_ edit: (inout Forger) -> Void) -> String { ForgeTests().forge(original, edit, in: folder) }
        // Entry 130 (page 2) below entry 129: page 2's lookups report it, page 0's answer.
        let unordered = forged { f in f.write(directory.offset + 16 + 16 * 130, 8, UInt64(blocked[129 * 256])) }
        let index = try CallDirIndex(path: unordered)
        #expect(try index.lookup(blocked[3]).blocked == .exact)
        #expect { try index.lookup(blocked[39_990]) } throws: { error in
            (error as? CallDirError)?.message.contains("directory entry 130 is out of order") == true
        }
        // Page 1's table entry no longer equal to directory entry 64: reported by page 0 (whose
        // last block it ends) and page 1.
        let moved = forged { f in f.write(table.offset + 16 + 16 + 8, 4, f.read(table.offset + 16 + 16 + 8, 4)! + 1) }
        let shifted = try CallDirIndex(path: moved)
        #expect(throws: CallDirError.self) { try shifted.lookup(blocked[10]) }
        #expect(throws: CallDirError.self) { try shifted.lookup(blocked[64 * 256 + 10]) }
        #expect(try shifted.lookup(blocked[39_000]).blocked == .exact)
        // A table whose header disagrees with the directory's: refused at open.
        let counted = forged { f in f.write(table.offset, 8, UInt64(blocked.count - 1)) }
        #expect { try CallDirIndex(path: counted) } throws: { error in
            (error as? CallDirError)?.message.contains("directory pages do not match the directory's header") == true
        }
    }
}
