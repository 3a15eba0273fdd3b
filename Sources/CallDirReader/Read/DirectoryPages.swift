import CKernels

/// A numbers directory cut into pages of 64 entries (FORMAT.md, "Directory pages"), and the
/// search summary filled in as pages are checked.
///
/// With a page table (format 2.1), opening checks only the table: 16 bytes per 16,384
/// numbers, 10 KB at 10 million where the directory is 625 KB. A lookup searches the table,
/// checks its page once (CRC, order, agreement with the table) and only then reads the page's
/// entries, so a one-shot lookup reads one page of the directory, not all of it. Without a page
/// table (format 2.0, delta files, a file the compiler just wrote) the table is derived from
/// the directory and every page is checked at open, as the whole directory was before.
///
/// The summary holds every 4th block's first number and offset (2 bytes per 256 entries, in
/// the CPU caches where the directory is not): a lookup searches the table, then the 16 summary
/// slots of its page, then reads one or two lines of the directory.
package final class DirectoryPages: @unchecked Sendable {  // slots are written before their page's flag (release/acquire)
    /// First number and first block offset of each page: searched by every lookup.
    package let firsts: [Int64]
    package let offsets: [UInt32]
    /// Each page's CRC; empty when the directory was checked whole at open.
    let crcs: [UInt32]
    /// Pages checked (CRC, order); their summary slots are filled.
    let checked: CheckedBlocks
    let summaryFirsts: UnsafeMutablePointer<Int64>
    let summaryOffsets: UnsafeMutablePointer<UInt32>
    let summaryCount: Int

    static let entriesPerPage = IndexFormat.directoryPageEntries
    /// Summary slots per page (entries per page / `NumberSetReader.summaryStride`).
    static let slotsPerPage = entriesPerPage / NumberSetReader.summaryStride

    init(firsts: [Int64], offsets: [UInt32], crcs: [UInt32], blockCount: Int) {
        self.firsts = firsts
        self.offsets = offsets
        self.crcs = crcs
        checked = CheckedBlocks(blockCount: firsts.count)
        summaryCount = (blockCount + NumberSetReader.summaryStride - 1) / NumberSetReader.summaryStride
        // Not initialised: a slot is read only after its page's check wrote it, and untouched
        // memory costs no page faults (120 KB at 10 million numbers).
        summaryFirsts = .allocate(capacity: max(summaryCount, 1))
        summaryOffsets = .allocate(capacity: max(summaryCount, 1))
    }

    deinit {
        summaryFirsts.deallocate()
        summaryOffsets.deallocate()
    }

    var count: Int { firsts.count }

    /// Parses and checks a directory-pages section against its directory's 16-byte header:
    /// the section repeats that header (the directory's own CRC is not checked at open), then
    /// one 16-byte entry per page. First numbers and offsets must rise strictly, first numbers
    /// be valid CallKit numbers, and the last page start before the data ends.
    static func parse(_ section: UnsafeRawBufferPointer, directoryHeader: UnsafeRawBufferPointer, blockCount: Int,
                      lastBlockLimit: Int, name: String, path: String) throws -> DirectoryPages {
        func damage(_ message: String) -> CallDirError {
            CallDirError(.corruptIndex, "\(name): directory pages \(message)", path: path)
        }
        guard section.count >= IndexFormat.directoryPageHeaderSize, directoryHeader.count >= 12,
              section[0..<12].elementsEqual(directoryHeader[0..<12]) else {
            throw damage("do not match the directory's header")
        }
        guard section.readLE(UInt32.self, at: 12) == UInt32(entriesPerPage) else { throw damage("have an unexpected page size") }
        let pageCount = (blockCount + entriesPerPage - 1) / entriesPerPage
        guard (section.count - IndexFormat.directoryPageHeaderSize) / IndexFormat.directoryPageSize == pageCount,
              (section.count - IndexFormat.directoryPageHeaderSize) % IndexFormat.directoryPageSize == 0 else {
            throw damage("hold \(section.count) bytes for \(pageCount) pages")
        }
        var firsts = [Int64](), offsets = [UInt32](), crcs = [UInt32]()
        firsts.reserveCapacity(pageCount)
        offsets.reserveCapacity(pageCount)
        crcs.reserveCapacity(pageCount)
        for p in 0..<pageCount {
            let at = IndexFormat.directoryPageHeaderSize + p * IndexFormat.directoryPageSize
            let first = Int64(bitPattern: section.readLE(UInt64.self, at: at)!)
            let offset = section.readLE(UInt32.self, at: at + 8)!
            guard E164.validValues.contains(first), p == 0 || (first > firsts[p - 1] && offset > offsets[p - 1]) else {
                throw damage("entry \(p) is out of order or out of range")
            }
            firsts.append(first)
            offsets.append(offset)
            crcs.append(section.readLE(UInt32.self, at: at + 12)!)
        }
        if let last = offsets.last, Int(last) > lastBlockLimit { throw damage("point past the end of the numbers") }
        return DirectoryPages(firsts: firsts, offsets: offsets, crcs: crcs, blockCount: blockCount)
    }

    /// The table of a directory without one: page firsts and offsets read from the entries
    /// (unchecked: the caller then checks every page, which compares them with their neighbours).
    static func derived(from directory: UnsafeRawBufferPointer, blockCount: Int) -> DirectoryPages {
        let pages = stride(from: 0, to: blockCount, by: entriesPerPage)
        let at = pages.map { $0 * IndexFormat.directoryEntrySize }
        return DirectoryPages(firsts: at.map { Int64(bitPattern: directory.readLE(UInt64.self, at: $0)!) },
                              offsets: at.map { directory.readLE(UInt32.self, at: $0 + 8)! }, crcs: [], blockCount: blockCount)
    }

    /// The page whose first number is the last at or below `number` (nil: below every page).
    @inline(__always)
    func page(for number: Int64) -> Int? {
        let found = firsts.withUnsafeBufferPointer { calldir_last_at_most($0.baseAddress, $0.count, number) }
        return found < 0 ? nil : found
    }

    /// The last summary slot of checked page `p` at or below `number` (the page's first is).
    @inline(__always)
    func summarySlot(for number: Int64, inPage p: Int) -> Int {
        let start = p &* Self.slotsPerPage
        let count = min(Self.slotsPerPage, summaryCount &- start)
        return start &+ max(0, calldir_last_at_most(summaryFirsts + start, count, number))
    }
}
