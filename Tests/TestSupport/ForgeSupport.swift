#if FUZZING
@testable import CallDirReader  // the fuzz package is another package: `package` API needs testability
#else
import CallDirReader
#endif

/// Edits an index's bytes as a forger would: change any field, then recompute every checksum
/// the format has (block CRCs in the directories, section CRCs, the section-table CRC, the
/// header CRC and the trailer), so that only the reader's range checks stand between the
/// forged value and a trap. Written from FORMAT.md, independently of the reader's code, and
/// tolerant of nonsense: whatever no longer fits the file is left unsealed. The fuzz package
/// compiles this same file (a symlink in Fuzz/Sources/FuzzSupport, built with FUZZING defined) to reseal fuzzed indexes.
public struct Forger {
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Section kinds by role, for an index or (by its magic) a delta file.
    package var isDelta: Bool { bytes.count >= 8 && bytes[5] == 0x4C && bytes[6] == 0x54 }  // "CALLDLT"
    package var numberSets: [(numbers: UInt64, directory: UInt64)] {
        isDelta ? [(34, 35), (36, 37), (38, 39), (40, 41)] : [(2, 3), (4, 5)]
    }
    package var identifiedNumbers: UInt64 { isDelta ? 40 : 4 }
    /// Directory kinds and their page tables (format 2.1; deltas have none).
    package var pageTables: [(directory: UInt64, pages: UInt64)] { isDelta ? [] : [(3, 12), (5, 13)] }
    package var rangeSections: [(kind: UInt64, stride: Int)] {
        isDelta ? [(44, 16), (45, 16), (46, 16), (47, 24)] : [(7, 16), (8, 24)]
    }
    package var metadataKind: UInt64 { isDelta ? 33 : 1 }

    /// A field to forge: where it is and how wide (1, 2, 4 or 8 bytes).
    package struct Field: CustomStringConvertible {
        package var name: String
        package var offset: Int
        package var width: Int
        package var description: String { "\(name) @\(offset)" }
    }

    package func read(_ offset: Int, _ width: Int) -> UInt64? {
        guard offset >= 0, width <= 8, offset <= bytes.count - width else { return nil }
        var value: UInt64 = 0
        for i in 0..<width { value |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
        return value
    }

    package mutating func write(_ offset: Int, _ width: Int, _ value: UInt64) {
        guard offset >= 0, offset <= bytes.count - width else { return }
        for i in 0..<width { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
    }

    package static func crc(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBytes { Checksum.crc32($0) }  // CRC-32/ISO-HDLC; ChecksumTests compare it with zlib
    }

    /// Sections as the (possibly forged) table describes them: kind, offset, length, entry position.
    package var sections: [(kind: UInt64, offset: Int, length: Int, entry: Int)] {
        guard let count = read(12, 4), count <= 1024, let table = read(24, 8), table < UInt64(bytes.count) else { return [] }
        return (0..<Int(count)).compactMap { i in
            let at = Int(table) + 32 * i
            guard let kind = read(at, 4), let offset = read(at + 8, 8), let length = read(at + 16, 8),
                  offset <= UInt64(bytes.count), length <= UInt64(bytes.count) - offset else { return nil }
            return (kind, Int(offset), Int(length), at)
        }
    }

    package func section(_ kind: UInt64) -> (offset: Int, length: Int)? {
        sections.first { $0.kind == kind }.map { ($0.offset, $0.length) }
    }

    /// Block starts and ends of a numbers section (kind 2 or 4) from its directory (3 or 5).
    package func blocks(numbers: UInt64, directory: UInt64) -> [(start: Int, end: Int, crcAt: Int)] {
        guard let data = section(numbers), let dir = section(directory), let count = read(dir.offset, 8) else { return [] }
        let blockCount = Int(min(count, 1 << 20) + 255) / 256
        var result: [(Int, Int, Int)] = []
        for b in 0..<blockCount {
            let at = dir.offset + 16 + 16 * b
            guard at + 16 <= dir.offset + dir.length, let start = read(at + 8, 4) else { break }
            let end = b + 1 < blockCount ? read(at + 24, 4).map(Int.init) ?? 0 : data.length - 8
            result.append((data.offset + Int(start), data.offset + end, at + 12))
        }
        return result
    }

    /// Label blocks of a label store (kind 10 or 11): the directory is the store's last
    /// ceil(count / 32) * 8 bytes; offsets are from the section's start.
    package func labelBlocks(_ kind: UInt64) -> [(start: Int, end: Int, crcAt: Int)] {
        guard let store = section(kind), let count = read(store.offset, 8) else { return [] }
        let blockCount = Int(min(count, 1 << 20) + 31) / 32
        let directory = store.offset + store.length - 8 * blockCount
        guard directory >= store.offset + 16 else { return [] }
        return (0..<blockCount).compactMap { b in
            let at = directory + 8 * b
            guard let start = read(at, 4) else { return nil }
            let end = b + 1 < blockCount ? read(at + 8, 4).map { store.offset + Int($0) } ?? 0 : directory
            return (store.offset + Int(start), end, at + 4)
        }
    }

    /// Recomputes every checksum, innermost first.
    public mutating func reseal() {
        var blocks = [(start: Int, end: Int, crcAt: Int)]()
        for (numbers, directory) in numberSets { blocks += self.blocks(numbers: numbers, directory: directory) }
        blocks += labelBlocks(10) + labelBlocks(11)
        for block in blocks where block.start <= block.end && block.end <= bytes.count {
            write(block.crcAt, 4, UInt64(Self.crc(bytes[block.start..<block.end])))
        }
        for (directory, pages) in pageTables { resealPages(directory: directory, pages: pages) }
        for s in sections { write(s.entry + 24, 4, UInt64(Self.crc(bytes[s.offset..<(s.offset + s.length)]))) }
        if let count = read(12, 4), let table = read(24, 8), count <= 1024,
           table <= UInt64(bytes.count), 32 * count <= UInt64(bytes.count) - table {
            write(32, 4, UInt64(Self.crc(bytes[Int(table)..<Int(table + 32 * count)])))
        }
        if bytes.count >= 64 { write(60, 4, UInt64(Self.crc(bytes[0..<60]))) }
        if bytes.count >= 80 { write(bytes.count - 16, 4, UInt64(Self.crc(bytes[0..<(bytes.count - 16)]))) }
    }

    /// Page p's CRC covers directory entries 64p ..< 64p + 64 (after the block CRCs in them).
    package mutating func resealPages(directory: UInt64, pages: UInt64) {
        guard let dir = section(directory), let table = section(pages), dir.length >= 16 else { return }
        let entries = (dir.length - 16) / 16
        for p in 0..<max(0, (table.length - 16) / 16) where 64 * p < entries {
            let start = dir.offset + 16 + 16 * 64 * p
            let end = dir.offset + 16 + 16 * min(entries, 64 * p + 64)
            write(table.offset + 16 + 16 * p + 12, 4, UInt64(Self.crc(bytes[start..<end])))
        }
    }

    /// Every field of the header, section table, directories, block headers, labels, ranges
    /// and metadata, plus a few bytes inside each block (forged block contents).
    package var fields: [Field] {
        var fields = [Field(name: "major", offset: 8, width: 2), Field(name: "minor", offset: 10, width: 2),
                      Field(name: "section count", offset: 12, width: 4), Field(name: "file size", offset: 16, width: 8),
                      Field(name: "table offset", offset: 24, width: 8)]
        for s in sections {
            fields += [Field(name: "kind of section \(s.kind)", offset: s.entry, width: 4),
                       Field(name: "offset of section \(s.kind)", offset: s.entry + 8, width: 8),
                       Field(name: "length of section \(s.kind)", offset: s.entry + 16, width: 8)]
        }
        for (_, kind) in numberSets {
            let name = "set \(kind)"
            guard let dir = section(kind) else { continue }
            fields += [Field(name: "\(name) count", offset: dir.offset, width: 8),
                       Field(name: "\(name) block size", offset: dir.offset + 8, width: 4)]
            for b in 0..<((dir.length - 16) / 16) {
                fields += [Field(name: "\(name) first number \(b)", offset: dir.offset + 16 + 16 * b, width: 8),
                           Field(name: "\(name) block offset \(b)", offset: dir.offset + 24 + 16 * b, width: 4)]
            }
        }
        for (_, kind) in pageTables {
            guard let table = section(kind) else { continue }
            fields += [Field(name: "pages \(kind) count", offset: table.offset, width: 8),
                       Field(name: "pages \(kind) block size", offset: table.offset + 8, width: 4),
                       Field(name: "pages \(kind) page size", offset: table.offset + 12, width: 4)]
            for p in 0..<((table.length - 16) / 16) {
                fields += [Field(name: "pages \(kind) first number \(p)", offset: table.offset + 16 + 16 * p, width: 8),
                           Field(name: "pages \(kind) block offset \(p)", offset: table.offset + 24 + 16 * p, width: 4)]
            }
        }
        for (numbers, directory) in numberSets {
            for (b, block) in blocks(numbers: numbers, directory: directory).enumerated() {
                for (i, at) in [block.start, block.start + 1, block.start + 2, (block.start + block.end) / 2, block.end - 1].enumerated()
                where at >= block.start && at < block.end {
                    fields.append(Field(name: "numbers \(numbers) block \(b) byte \(i)", offset: at, width: 1))
                }
                if numbers == identifiedNumbers {  // C and S of the identified block header
                    fields += [Field(name: "identified block \(b) stream count", offset: block.start + 2, width: 2),
                               Field(name: "identified block \(b) stream base", offset: block.start + 4, width: 4)]
                }
            }
        }
        if let symbols = section(9), let count = read(symbols.offset, 4) {
            fields.append(Field(name: "symbol count", offset: symbols.offset, width: 4))
            for i in 0..<Int(min(count, 8)) { fields.append(Field(name: "symbol length \(i)", offset: symbols.offset + 4 + i, width: 1)) }
        }
        for kind in [UInt64(10), 11] {
            guard let store = section(kind) else { continue }
            fields += [Field(name: "labels \(kind) count", offset: store.offset, width: 8),
                       Field(name: "labels \(kind) per block", offset: store.offset + 8, width: 4),
                       Field(name: "labels \(kind) zero", offset: store.offset + 12, width: 4)]
            for (b, block) in labelBlocks(kind).enumerated() {
                fields.append(Field(name: "labels \(kind) block \(b) offset", offset: block.crcAt - 4, width: 4))
                for (i, at) in [block.start, block.start + 1, (block.start + block.end) / 2, block.end - 1].enumerated()
                where at >= block.start && at < block.end {
                    fields.append(Field(name: "labels \(kind) block \(b) byte \(i)", offset: at, width: 1))
                }
            }
        }
        for (kind, stride) in rangeSections {
            guard let ranges = section(kind) else { continue }
            for r in 0..<(ranges.length / stride) {
                let at = ranges.offset + stride * r
                fields += [Field(name: "range \(kind).\(r) first", offset: at, width: 8),
                           Field(name: "range \(kind).\(r) last", offset: at + 8, width: 8)]
                if stride == 24 { fields.append(Field(name: "range \(kind).\(r) label", offset: at + 16, width: 4)) }
            }
        }
        if let metadata = section(metadataKind) {
            for i in 0..<12 { fields.append(Field(name: "metadata field \(i)", offset: metadata.offset + 8 * i, width: 8)) }
            fields.append(Field(name: "generator length", offset: metadata.offset + 96, width: 4))
        }
        return fields
    }

    /// Values a forger would try for a field holding `original`.
    package static func forgeries(of original: UInt64, width: Int) -> [UInt64] {
        let mask = width == 8 ? UInt64.max : (UInt64(1) << (8 * UInt64(width))) - 1
        let signBit = UInt64(1) << (8 * UInt64(width) - 1)
        let values: [UInt64] = [0, 1, mask, mask - 1, signBit, signBit - 1, original &+ 1, original &- 1,
                                original &* 2, original / 2, original ^ signBit, original &+ 256, original &+ 4096]
        var seen = Set<UInt64>()
        return values.map { $0 & mask }.filter { $0 != original && seen.insert($0).inserted }
    }
}
