import CKernels

/// Reads one label store section in place (layout: `LabelStoreLayout`). Opening reads only
/// the 16-byte header and checks the directory's size, so it costs the same whatever the
/// number of labels. Unless the whole file was verified, a label block's layout is checked
/// whole (CRC, step table, label lengths and count) the first time a label in it is read, and
/// each label's text as it is decoded (`LabelReader.withBytes`); directory entries are
/// range-checked on use, and a damaged entry selects bytes whose CRC does not match.
package struct LabelStoreReader {
    package let section: UnsafeRawBufferPointer
    package let count: Int
    package let blockCount: Int
    package let name: String
    /// Labels per step of the blocks' step tables: 4, or 0 in a format 2 store (no table).
    package let labelsPerStep: Int
    private let directoryOffset: Int
    private let checked: CheckedBlocks

    /// `labelsPerStep`: what the file's version says the header holds (4 in format 3, 0 in 2).
    package init(_ section: UnsafeRawBufferPointer, name: String, labelsPerStep: Int = LabelStoreLayout.labelsPerStep,
                 path: String) throws {
        func damage(_ message: String) -> CallDirError { CallDirError(.corruptIndex, "\(name): \(message)", path: path) }
        guard let count = section.readLE(UInt64.self, at: 0), let perBlock = section.readLE(UInt32.self, at: 8),
              let perStep = section.readLE(UInt32.self, at: 12) else { throw damage("section too short") }
        guard perBlock == UInt32(LabelStoreLayout.labelsPerBlock) else { throw damage("unexpected block size \(perBlock)") }
        guard perStep == UInt32(labelsPerStep) else { throw damage("unexpected step size \(perStep)") }
        guard count <= UInt64(LabelRef.maxStreamLabels) else { throw damage("impossible label count \(count)") }
        let blockCount = (Int(count) + LabelStoreLayout.labelsPerBlock - 1) / LabelStoreLayout.labelsPerBlock
        let directoryLength = blockCount * LabelStoreLayout.directoryEntrySize
        guard section.count - LabelStoreLayout.headerSize >= directoryLength else {
            throw damage("section of \(section.count) bytes cannot hold the directory of \(count) labels")
        }
        let d = section.count - directoryLength
        self.section = section
        self.count = Int(count)
        self.blockCount = blockCount
        self.name = name
        self.labelsPerStep = labelsPerStep
        directoryOffset = d
        checked = CheckedBlocks(blockCount: blockCount)
    }

    /// Bytes of block `b`, or nil when its directory entry points outside the block area.
    @inline(__always)
    package func blockBytes(_ b: Int) -> (bytes: UnsafeRawBufferPointer, crc: UInt32)? {
        let at = directoryOffset + b * LabelStoreLayout.directoryEntrySize
        let start = Int(section.readLE(UInt32.self, at: at)!)
        let end = b + 1 < blockCount ? Int(section.readLE(UInt32.self, at: at + 8)!) : directoryOffset
        guard start >= LabelStoreLayout.headerSize, start <= end, end <= directoryOffset else { return nil }
        return (UnsafeRawBufferPointer(rebasing: section[start..<end]), section.readLE(UInt32.self, at: at + 4)!)
    }

    /// Block `b`'s bytes once its CRC matched (every time: `validateOnce` remembers blocks).
    @inline(__always)
    package func crcCheckedBlock(_ b: Int, path: String) throws -> UnsafeRawBufferPointer {
        guard let (bytes, crc) = blockBytes(b) else { throw outside(block: b, path: path) }
        guard Checksum.crc32(bytes) == crc else { throw checksumMismatch(b, bytes: bytes, path: path) }
        return bytes
    }

    /// Checks block `b`'s layout the first time a label in it is read (unless the file was
    /// verified): what `verify` checks of every block but the labels' text, which a read
    /// checks as it decodes. One check per block per process.
    @inline(__always)
    package func checkLayoutOnce(_ b: Int, path: String) throws {
        if !checked.contains(b) { try checkLayout(b, path: path) }
    }

    /// Block `b`'s CRC, its step table, its labels' lengths and their count. Kept out of line,
    /// as are the errors, so that a lookup's common path stays small enough to inline.
    @inline(never)
    package func checkLayout(_ b: Int, path: String) throws {
        let found = try forEachLabel(inBlock: b, path: path) { _ in }
        guard found == labels(inBlock: b) else {
            throw CallDirError(.corruptIndex, "\(name): block \(b) holds \(found) labels, expected \(labels(inBlock: b))", path: path)
        }
        checked.insert(b)
    }

    /// `checkLayout`, then every label decoded with `symbols` and checked as a compile checks
    /// input labels (`LabelRule`): what `verify` runs on every block.
    package func validate(_ b: Int, symbols: LabelSymbols, path: String) throws {
        _ = try forEachLabel(inBlock: b, path: path) { codes in
            guard let problem = symbols.withDecoded(codes, { LabelKinds.problem($0, kinds: $1) }) else {
                throw CallDirError(.corruptIndex, "\(name): block \(b): a label does not decode", path: path)
            }
            if let problem { throw invalid(block: b, problem, path: path) }
        }
        try checkLayout(b, path: path)
    }

    /// A label `LabelRule` refuses (the same words from `verify` and from a lookup).
    @inline(never)
    package func invalid(block b: Int, _ problem: RejectReason, path: String) -> CallDirError {
        CallDirError(.corruptIndex, "\(name): block \(b): a label is invalid (\(problem.rawValue))", path: path)
    }

    @inline(never)
    private func checksumMismatch(_ b: Int, bytes: UnsafeRawBufferPointer, path: String) -> CallDirError {
        CallDirError(.corruptIndex, "\(name): label block \(b) fails its checksum; run `calldir verify`",
                     path: path, offset: bytes.baseAddress.map { $0 - section.baseAddress! })
    }

    @inline(never)
    private func outside(block b: Int, path: String) -> CallDirError {
        CallDirError(.corruptIndex, "\(name): block \(b) lies outside the section; run `calldir verify`", path: path)
    }

    /// Labels in block `b` (32, the last block the rest).
    @inline(__always)
    package func labels(inBlock b: Int) -> Int { min(LabelStoreLayout.labelsPerBlock, count &- b &* LabelStoreLayout.labelsPerBlock) }

    /// Starts loading the directory entry of label `i`'s block (batch lookups).
    @inline(__always)
    package func prefetchDirectoryEntry(ofLabel i: Int) {
        guard i < count, let base = section.baseAddress else { return }
        calldir_prefetch(base + directoryOffset + (i / LabelStoreLayout.labelsPerBlock) * LabelStoreLayout.directoryEntrySize)
    }

    /// Starts loading the bytes of label `i`'s block (its directory entry read, bounds checked).
    @inline(__always)
    package func prefetchBlock(ofLabel i: Int) {
        guard i < count, let (bytes, _) = blockBytes(i / LabelStoreLayout.labelsPerBlock), let base = bytes.baseAddress else { return }
        var line = 0
        while line < bytes.count {
            calldir_prefetch(base + line)
            line &+= 64
        }
    }

    /// The coded bytes of label `i` (< count), from a block `validateOnce` checked (or a verified file).
    @inline(__always)
    package func codes(_ i: Int, path: String) throws -> UnsafeRawBufferPointer {
        let b = i / LabelStoreLayout.labelsPerBlock
        guard let (block, _) = blockBytes(b) else { throw outside(block: b, path: path) }
        guard let codes = Self.label(i % LabelStoreLayout.labelsPerBlock, in: block,
                                     stepTable: labelsPerStep > 0 ? LabelStoreLayout.stepTableSize(labels: labels(inBlock: b)) : nil)
        else { throw malformed(label: i, block: b, path: path) }
        return codes
    }

    /// The codes of the `j`-th label of `block`, whose step table (format 3) is `stepTable`
    /// bytes long, or nil when the block is malformed.
    @inline(__always)
    private static func label(_ j: Int, in block: UnsafeRawBufferPointer, stepTable: Int?) -> UnsafeRawBufferPointer? {
        var at = 0
        var skip = j
        if let stepTable {  // start at the step table's label at or before j
            let step = j / LabelStoreLayout.labelsPerStep
            at = step == 0 ? stepTable : Int(block.readLE(UInt16.self, at: 2 * (step - 1)) ?? 0)
            guard stepTable <= block.count, at >= stepTable else { return nil }
            skip -= step * LabelStoreLayout.labelsPerStep
        }
        while true {
            guard let length = LabelStoreLayout.readLength(block, at: &at, end: block.count),
                  length <= LabelStoreLayout.maxCodedLength, length <= block.count - at else { return nil }
            if skip == 0 { return UnsafeRawBufferPointer(rebasing: block[at..<(at + length)]) }
            at += length
            skip -= 1
        }
    }

    @inline(never)
    private func malformed(label i: Int, block b: Int, path: String) -> CallDirError {
        CallDirError(.corruptIndex, "\(name): label \(i) in block \(b) is malformed (its length or the block's step table); run `calldir verify`",
                     path: path)
    }

    /// Calls `body` with the codes of every label of block `b` in order; returns how many
    /// labels it held (the caller compares with what the block should hold). For `verify`.
    /// The step table (format 3) must name where every 4th label starts.
    package func forEachLabel(inBlock b: Int, path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        let block = try crcCheckedBlock(b, path: path)
        let table = labelsPerStep > 0 ? LabelStoreLayout.stepTableSize(labels: labels(inBlock: b)) : 0
        guard table <= block.count else { throw CallDirError(.corruptIndex, "\(name): block \(b) is shorter than its step table", path: path) }
        var at = table
        var n = 0
        // Labels before the next step-table entry, counted down: no division per label (a
        // lookup's first read of every block walks it, and `verify` every label).
        var untilStep = labelsPerStep
        while at < block.count {
            if labelsPerStep > 0 {
                if untilStep == 0, 2 * (n / labelsPerStep) <= table {
                    let step = n / labelsPerStep
                    guard block.readLE(UInt16.self, at: 2 * (step - 1)).map(Int.init) == at else {
                        throw CallDirError(.corruptIndex, "\(name): block \(b) step table entry \(step - 1) does not locate label \(n)",
                                           path: path)
                    }
                }
                untilStep = untilStep == 0 ? labelsPerStep - 1 : untilStep - 1
            }
            guard let length = LabelStoreLayout.readLength(block, at: &at, end: block.count),
                  length <= LabelStoreLayout.maxCodedLength, length <= block.count &- at else {
                throw CallDirError(.corruptIndex, "\(name): block \(b) label \(n) is malformed", path: path)
            }
            try body(UnsafeRawBufferPointer(start: block.baseAddress.map { $0 + at }, count: length))  // in bounds: checked above
            at &+= length
            n &+= 1
        }
        return n
    }
}

/// Every label of an index: the symbol table and the two stores, resolved by `LabelRef`.
package struct LabelReader {
    package let symbols: LabelSymbols
    package let shared: LabelStoreReader
    package let stream: LabelStoreReader

    package init(symbols: LabelSymbols, shared: LabelStoreReader, stream: LabelStoreReader) {
        self.symbols = symbols
        self.shared = shared
        self.stream = stream
    }

    /// Shared labels (range records and shared refs must stay below this).
    package var sharedCount: Int { shared.count }

    // The stores are chosen by `if`, never as a value (`let store = cond ? stream : shared`):
    // copying a store retains its fields, which cost a batch lookup 7% of its time.

    @inline(__always)
    package func prefetchDirectoryEntry(of ref: UInt32) {
        let i = Int(ref & ~LabelRef.streamFlag)
        if LabelRef.isStream(ref) { stream.prefetchDirectoryEntry(ofLabel: i) } else { shared.prefetchDirectoryEntry(ofLabel: i) }
    }

    @inline(__always)
    package func prefetchBlock(of ref: UInt32) {
        let i = Int(ref & ~LabelRef.streamFlag)
        if LabelRef.isStream(ref) { stream.prefetchBlock(ofLabel: i) } else { shared.prefetchBlock(ofLabel: i) }
    }

    /// The text of `ref`; throws when it is out of bounds or its block is damaged.
    package func label(_ ref: UInt32, check: Bool, path: String) throws -> String {
        try withBytes(of: ref, check: check, path: path) { String(decoding: $0, as: UTF8.self) }
    }

    package func bytes(of ref: UInt32, check: Bool, path: String, into text: inout [UInt8]) throws {
        text.removeAll(keepingCapacity: true)
        try withBytes(of: ref, check: check, path: path) { text.append(contentsOf: $0) }
    }

    /// Calls `body` with the text of `ref` (valid inside `body` only). With `check` (an index
    /// not verified at open), the label's block layout is checked on first read and the label
    /// as it is decoded, so a label `verify` would refuse is never handed out.
    @inline(__always)
    package func withBytes<R>(of ref: UInt32, check: Bool, path: String, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        let isStream = LabelRef.isStream(ref)
        let i = Int(ref & ~LabelRef.streamFlag)
        guard i < (isStream ? stream.count : shared.count) else {
            let store = isStream ? stream : shared
            throw CallDirError(.corruptIndex, "\(store.name): label \(i) is out of bounds (\(store.count) stored)", path: path)
        }
        let b = i / LabelStoreLayout.labelsPerBlock
        if check {
            if isStream { try stream.checkLayoutOnce(b, path: path) } else { try shared.checkLayoutOnce(b, path: path) }
        }
        let codes = isStream ? try stream.codes(i, path: path) : try shared.codes(i, path: path)
        let result = try symbols.withDecoded(codes) { text, kinds -> R in
            if check, let problem = LabelKinds.problem(text, kinds: kinds) {
                throw isStream ? stream.invalid(block: b, problem, path: path) : shared.invalid(block: b, problem, path: path)
            }
            return try body(text)
        }
        guard let result else {
            throw CallDirError(.corruptIndex, "\(isStream ? stream.name : shared.name): label \(i) does not decode; run `calldir verify`",
                               path: path)
        }
        return result
    }
}
