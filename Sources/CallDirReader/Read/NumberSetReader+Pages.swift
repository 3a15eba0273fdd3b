/// Checking directory pages before their entries are used (see `DirectoryPages`).
extension NumberSetReader {
    /// Checks page `p` unless it was checked already in this process.
    @inline(__always)
    package func ensurePage(_ p: Int, path: String) throws {
        if !pages.checked.contains(p) { try checkPage(p, path: path) }
    }

    /// Checks every page (open without a page table, `verify`).
    package func checkAllPages(path: String) throws {
        for p in 0..<pages.count { try ensurePage(p, path: path) }
    }

    /// Page `p`'s CRC (when the table has one), then its entries: valid first numbers, first
    /// numbers and offsets rising strictly, the first entry equal to the table's, and the last
    /// below the next page's first entry, which must equal the table's too (it ends the page's
    /// last block). Fills the page's summary slots, then marks the page checked. A race only
    /// means a page is checked twice, writing the same slots.
    @inline(never)
    package func checkPage(_ p: Int, path: String) throws {
        let start = p * DirectoryPages.entriesPerPage
        let end = min(start + DirectoryPages.entriesPerPage, blockCount)
        func damage(_ message: String) -> CallDirError {
            CallDirError(.corruptIndex, "\(name): \(message); run `calldir verify`", path: path)
        }
        if !pages.crcs.isEmpty {
            let bytes = UnsafeRawBufferPointer(rebasing: directory[(start * IndexFormat.directoryEntrySize)..<(end * IndexFormat.directoryEntrySize)])
            guard Checksum.crc32(bytes) == pages.crcs[p] else { throw damage("directory page \(p) fails its checksum") }
        }
        var previous = (first: pages.firsts[p], offset: Int(pages.offsets[p]))
        for i in start..<end {
            let (first, offset, _) = entry(i)
            let ordered = i == start ? (first == previous.first && offset == previous.offset)
                                     : (first > previous.first && offset > previous.offset)
            guard ordered, E164.validValues.contains(first) else { throw damage("directory entry \(i) is out of order or out of range") }
            if i % Self.summaryStride == 0 {
                pages.summaryFirsts[i / Self.summaryStride] = first
                pages.summaryOffsets[i / Self.summaryStride] = UInt32(offset)
            }
            previous = (first, offset)
        }
        if end < blockCount {
            let next = entry(end)
            guard next.first == pages.firsts[p + 1], next.offset == Int(pages.offsets[p + 1]),
                  previous.first < next.first, previous.offset < next.offset else {
                throw damage("directory entry \(end) is out of order or out of range")
            }
        } else if previous.offset + EliasFanoBlock.headerBytes(identified: identified) > dataEnd {
            throw damage("last block starts past the end of the section")
        }
        pages.checked.insert(p)
    }
}

/// The first decode of a block (lookups and iteration on an index not verified at open).
extension NumberSetReader {
    /// Block `b` whose CRC matched, checked as `verify` checks it: its count of strictly rising
    /// valid numbers below the next block's first, its encoding as the formulas give it (L, W,
    /// h, label part), and in an index's identification set S of block 0 = 0, S + C within the
    /// stream store and shared ids below the shared count. A forged block with resealed CRCs
    /// would otherwise answer other numbers or other rows' labels.
    @inline(never)
    package func checkFirstDecode(_ b: Int, path: String) throws {
        func damage(_ message: String) -> CallDirError {
            CallDirError(.corruptIndex, "\(name): block \(b) \(message); run `calldir verify`", path: path, offset: entry(b).offset)
        }
        guard let block = reader(forBlock: b) else { throw damage("is malformed") }
        let limit = b + 1 < blockCount ? first(b + 1) : E164.validValues.upperBound &+ 1
        // Checked as they decode, not written to a 2 KiB buffer and read again (issue 46).
        var last = Int64.min, ascending = true
        let produced = block.decode { value in
            ascending = value > last
            last = value
            return ascending
        }
        guard ascending else { throw damage("numbers are not strictly ascending") }
        guard produced == block.count else { throw damage("decodes \(produced) of \(block.count) numbers") }
        guard last < limit else { throw damage("numbers reach the next block's first number or past the valid numbers") }
        var sharedLabels = Int.max
        if identified, let labelCounts {
            sharedLabels = labelCounts.shared
            guard b > 0 || block.streamBase == 0 else { throw damage("starts at stream label \(block.streamBase), expected 0") }
            guard block.streamBase + block.streamCount <= labelCounts.stream else {
                throw damage("uses stream labels past the store's \(labelCounts.stream)")
            }
        }
        if let problem = block.layoutProblem(last: last, sharedLabels: sharedLabels) { throw damage("is malformed: \(problem)") }
    }
}
