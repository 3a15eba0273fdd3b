import Foundation
import Testing
import CallDirReader
import CallDirSimulator
import TestSupport

/// Forged indexes: fields set to hostile values with every checksum recomputed. Opening,
/// lookups, iteration and verify must throw `CallDirError` or answer, never trap; and a file
/// that `verify` accepts must answer lookups consistently with what it iterates.
@Suite("Forged indexes")
struct ForgeTests {
    /// The small index of the damage tests: blocks of both kinds, labels, both range kinds.
    func makeIndex(_ folder: TempFolder) throws -> (bytes: [UInt8], probes: [Int64]) {
        let (path, probes) = try DamageTests().makeIndex(folder)
        return (fileBytes(path), probes + [1, Int64.max - 1, Int64.max])
    }

    func forge(_ bytes: [UInt8], _ edit: (inout Forger) -> Void, in folder: TempFolder) -> String {
        var forger = Forger(bytes: bytes)
        edit(&forger)
        forger.reseal()
        let path = folder.file("forged.calldir")
        _ = FileManager.default.createFile(atPath: path, contents: Data(forger.bytes))
        return path
    }

    /// Everything a reader can do with a file; errors are expected, traps are the failure.
    func exercise(_ path: String, probes: [Int64]) {
        if let index = try? CallDirIndex(path: path) {
            for n in probes { _ = try? index.lookup(n) }
            _ = try? index.lookup(probes)
            try? index.forEachBlockedNumber { _ in }
            try? index.forEachIdentifiedNumber { _, _ in }
            _ = index.blockedRangeList
            _ = try? index.checkedIdentifiedRanges()
            _ = try? index.distinctLabels()
        }
    }

    /// For a file verify accepts: lookups agree with iteration and ranges, number by number.
    func checkConsistent(_ index: CallDirIndex, probes: [Int64], field: String) throws {
        var blocked = Set<Int64>()
        try index.forEachBlockedNumber { blocked.insert($0) }
        var labels: [Int64: String] = [:]
        try index.forEachIdentifiedNumber { labels[$0] = $1 }
        let blockedRanges = index.blockedRangeList
        let identifiedRanges = try index.checkedIdentifiedRanges()
        for n in Set(probes).union(blocked).union(labels.keys) {
            let got = try index.lookup(n)
            let blockedHere = blocked.contains(n) || blockedRanges.contains { $0.contains(n) }
            let label = labels[n] ?? identifiedRanges.first { $0.range.contains(n) }?.label
            #expect((got.blocked != nil) == blockedHere && got.label == label, "\(field): lookup(\(n)) disagrees with iteration")
        }
    }

    @Test("every field forged with valid checksums: errors or consistent answers, never a trap")
    func forgeEveryField() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (original, probes) = try makeIndex(folder)
        let fields = Forger(bytes: original).fields
        #expect(fields.count > 80, "the sweep should cover every section; it found \(fields.count) fields")
        var forged = 0, refused = 0
        for field in fields {
            let value = Forger(bytes: original).read(field.offset, field.width)!
            for forgery in Forger.forgeries(of: value, width: field.width) {
                let path = forge(original, { $0.write(field.offset, field.width, forgery) }, in: folder)
                forged += 1
                exercise(path, probes: probes)
                do {
                    let index = try CallDirIndex(path: path, verify: true)
                    try checkConsistent(index, probes: probes, field: "\(field) = \(forgery)")
                } catch is CallDirError {
                    refused += 1
                }
            }
        }
        #expect(forged > 800)
        #expect(refused > forged / 2, "verify refused only \(refused) of \(forged) forgeries")
    }

    @Test("the three traps from the reliability issue are errors naming the section")
    func knownTraps() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (original, probes) = try makeIndex(folder)
        let table = Forger(bytes: original)
        let directory = try #require(table.section(3))
        let ranges = try #require(table.section(7))
        let cases: [(String, (inout Forger) -> Void)] = [
            ("section table out of bounds", { $0.write(24, 8, UInt64.max) }),
            ("blocked-numbers: directory entry 0 is out of order or out of range",
             { $0.write(directory.offset + 16, 8, UInt64(bitPattern: -5)) }),
            ("blocked-ranges: range 0 is out of order", { f in
                let first = f.read(ranges.offset, 8)!
                f.write(ranges.offset + 8, 8, first - 1)
            }),
        ]
        for (message, edit) in cases {
            let path = forge(original, edit, in: folder)
            exercise(path, probes: probes)
            for verify in [false, true] {
                do {
                    // Directory pages are checked when first used: without verify, the walk
                    // through every block is what reaches the forged entry.
                    let index = try CallDirIndex(path: path, verify: verify)
                    try index.forEachBlockedNumber { _ in }
                    Issue.record("\(message): the forged file was read")
                } catch let error as CallDirError {
                    #expect(error.code == .corruptIndex)
                    #expect(error.message.contains(message), "\(error.message)")
                }
            }
        }
    }

    /// The load checkpoint's fields (FORMAT.md, "Load checkpoint"), offset and width.
    static let checkpointFields = [(0, 4), (4, 2), (6, 2), (8, 4), (12, 4), (16, 8), (24, 8), (32, 8), (40, 8), (48, 8)]

    @Test("every load-checkpoint field forged with a valid CRC: refused, or read back exactly; loading from it never traps")
    func forgeCheckpointFields() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let path = folder.file("i.calldir")
        let (bytes, _) = try makeIndex(folder)
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let index = try CallDirIndex(path: path)
        // Real checkpoints: after each request of a load in small requests, and one of an update.
        var samples: [LoadCheckpoint] = []
        let simulator = CallKitSimulator()
        var committed: LoadCheckpoint?
        repeat {
            simulator.beginRequest(systemSaysIncremental: true)
            committed = try DeviceLoader(index: index, requestSize: 3).loadRequest(into: simulator, resumingFrom: committed).checkpoint
            #expect(simulator.endRequest().succeeded)
            samples.append(committed!)
        } while !committed!.isFinished && samples.count < 1_000
        var update = LoadCheckpoint(index: index)
        update.update = .init(from: index)
        update.lastBlockingNumber = 33_100_000_000
        update.lastIdentificationNumber = 33_100_000_000
        samples.append(update)

        var forged = 0, refused = 0
        for sample in samples {
            for (offset, width) in Self.checkpointFields {
                let value = Forger(bytes: sample.bytes).read(offset, width)!
                for forgery in Forger.forgeries(of: value, width: width) {
                    var forger = Forger(bytes: Array(sample.bytes.prefix(56)))
                    forger.write(offset, width, forgery)
                    let crc = Checksum.crc32(forger.bytes)
                    let bytes = forger.bytes + (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * UInt32($0))) }
                    forged += 1
                    guard let checkpoint = try? LoadCheckpoint(bytes: bytes) else { refused += 1; continue }
                    #expect(checkpoint.bytes == bytes, "field @\(offset) = \(forgery) read back differently")
                    let device = CallKitSimulator()
                    device.beginRequest(systemSaysIncremental: true)
                    _ = try? DeviceLoader(index: index, previous: index, requestSize: 5).loadRequest(into: device, resumingFrom: checkpoint)
                    _ = device.endRequest()
                }
            }
        }
        #expect(forged > 300)
        #expect(refused > forged / 4, "only \(refused) of \(forged) forged checkpoints were refused")
    }
}
