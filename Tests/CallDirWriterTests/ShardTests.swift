import CallDirReader
import CallDirSimulator
@testable import CallDirWriter
import Foundation
import Testing
import TestSupport

/// `calldir shard` (issue 48): the shards of a list, each loaded into its own simulated
/// extension, hold exactly the list's entries; looked up together they answer as the list;
/// by size, no shard holds more than asked; the manifest refuses edits and foreign shards.
@Suite("Shards")
struct ShardTests {
    /// A random list with both kinds, exact numbers inside ranges, long ranges and shared and
    /// own labels, and the numbers worth asking about.
    static func randomList(_ folder: TempFolder, seed: UInt64) throws -> (index: CallDirIndex, probes: [Int64]) {
        var rng = SeededGenerator(seed: seed)
        let base: Int64 = 33_100_000_000
        var block: [String] = [], identify: [String] = [], probes: [Int64] = [1, base - 1, Int64.max]
        for _ in 0..<Int.random(in: 0...400, using: &rng) {
            let n = base + Int64.random(in: 0..<20_000, using: &rng)
            probes += [n, n + 1]
            switch Int.random(in: 0..<12, using: &rng) {
            case 0:
                let last = n + Int64.random(in: 0..<3_000, using: &rng)
                block.append("\(n)-\(last)"); probes += [last, last + 1]
            case 1:
                let last = n + Int64.random(in: 0..<500, using: &rng)
                identify.append("\(n)-\(last),Range \(n % 3)"); probes += [last, last + 1]
            case 2...6: block.append("\(n)")
            default: identify.append("\(n),\(n % 4 == 0 ? "Caller \(n)" : "Shared \(n % 5)")")
            }
        }
        return (try buildIndex(folder, "list.calldir", block: block, identify: identify), probes)
    }

    static func stores(_ indexes: [CallDirIndex]) throws -> (blocking: [Int64], identification: [Int64: String]) {
        var blocking: [Int64] = [], identification: [Int64: String] = [:]
        for index in indexes {
            let simulator = CallKitSimulator()
            _ = try loadFully(DeviceLoader(index: index, requestSize: 700), into: simulator)
            simulator.forEachBlockingEntry { blocking.append($0) }
            simulator.forEachIdentificationEntry { n, label in
                #expect(identification.updateValue(label, forKey: n) == nil, "\(n) is labelled by two shards")
            }
        }
        return (blocking.sorted(), identification)
    }

    @Test("by category: each extension holds its category's list; shared numbers blocked if one blocks, the first's label", arguments: 0..<8)
    func categoriesAreTheirLists(seed: UInt64) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        // Three categories from lists drawn near the same numbers, so they share some.
        var categories: [(name: String, index: CallDirIndex)] = []
        var probes: [Int64] = []
        for (i, name) in ["scam", "survey", "known-2"].enumerated() {
            let sub = TempFolder()
            defer { sub.remove() }
            let (index, more) = try Self.randomList(sub, seed: seed &* 3 &+ UInt64(i))
            try FileManager.default.copyItem(atPath: index.path, toPath: folder.file(name + ".calldir"))
            categories.append((name, try CallDirIndex(path: folder.file(name + ".calldir"))))
            probes += more
        }
        let out = folder.file("categories")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let manifest = try ShardWriter.write(categories: categories, extensionPrefix: "com.example.Blocker", folder: out,
                                             temporaryFolder: folder.path)
        #expect(manifest.rule == .category && manifest.shards.map(\.extensionIdentifier) == categories.map { "com.example.Blocker.\($0.name)" })
        let set = try ShardSet(manifestPath: out + "/shards.json", verify: true)
        #expect(set.manifest == manifest)
        for (shard, category) in zip(set.indexes, categories) {
            let (a, b) = (try Self.stores([shard]), try Self.stores([category.index]))
            #expect(a.blocking == b.blocking && a.identification == b.identification, "\(category.name)")
        }
        for n in probes {
            let answers = try categories.map { try $0.index.lookup(n) }
            let sharded = try set.lookup(n)
            #expect((sharded.blocked != nil) == answers.contains { $0.blocked != nil }, "\(n)")
            #expect(sharded.label == answers.first { $0.label != nil }?.label, "\(n)")
        }
    }

    @Test("by kind and by size: the extensions hold the list's entries, lookups answer as the list", arguments: 0..<24)
    func shardsAreTheList(seed: UInt64) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (index, probes) = try Self.randomList(folder, seed: seed)
        let whole = try Self.stores([index])
        // By size: a few large shards, and about 6 small ones (at least 2 entries: a number
        // blocked and labelled is never split).
        let small = Swift.max(2, index.metadata.deviceEntries / 6)
        for (rule, max) in [(ShardManifest.Rule.kind, Int64(0)), (.size, 300 + Int64(seed % 7) * 1_500), (.size, small)] {
            let out = folder.file("\(rule)-\(max)")
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
            let manifest = try ShardWriter.write(index, rule: rule, maxEntries: max, extensionPrefix: "com.example.Blocker",
                                                 folder: out, temporaryFolder: folder.path)
            let set = try ShardSet(manifestPath: out + "/shards.json", verify: true)
            #expect(set.manifest == manifest)
            #expect(manifest.shards.map(\.deviceEntries).reduce(0, +) == index.metadata.deviceEntries)
            if rule == .size {
                #expect(manifest.shards.allSatisfy { $0.deviceEntries <= max }, "\(manifest.shards.map(\.deviceEntries))")
                #expect(zip(manifest.shards, manifest.shards.dropFirst()).allSatisfy { $0.numbers.last + 1 == $1.numbers.first })
                #expect(index.metadata.deviceEntries <= 2 || manifest.shards.count > 1 || max > index.metadata.deviceEntries)
            }
            let sharded = try Self.stores(set.indexes)
            #expect(sharded.blocking == whole.blocking && sharded.identification == whole.identification, "\(rule) \(max)")
            for n in probes {
                let (a, b) = (try index.lookup(n), try set.lookup(n))
                #expect(a.action == b.action && a.label == b.label && a.labelMatch == b.labelMatch && a.blocked == b.blocked,
                        "\(rule) \(max): \(n): \(a) vs \(b)")
            }
        }
    }

    @Test("a manifest edited, pointing out of its folder or at another shard is refused, naming why")
    func manifestRefusesEdits() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (index, _) = try Self.randomList(folder, seed: 3)
        let manifest = try ShardWriter.write(index, rule: .size, maxEntries: 500, extensionPrefix: "com.example.Blocker",
                                             folder: folder.path, temporaryFolder: folder.path)
        #expect(manifest.shards.count > 1)
        let path = folder.file("shards.json")
        let good = fileBytes(path)
        func refused(_ bytes: [UInt8], _ words: String) {
            folder.write("shards.json", bytes)
            let error = #expect(throws: CallDirError.self) { try ShardSet(manifestPath: path) }
            #expect(error?.code == .corruptIndex && error?.message.contains(words) == true, "\(String(describing: error))")
        }
        var edited = good
        edited[good.count / 2] ^= 0x01
        refused(edited, "CRC-32 does not match")
        var outside = manifest
        outside.shards[0].file = "../list.calldir"
        refused(outside.encoded, "out of range")
        // Valid JSON with a valid CRC, in another form (a space added): refused too.
        let text = String(decoding: good, as: UTF8.self)
        var spaced = Array(text[..<text.range(of: ",\"crc32\"")!.lowerBound].replacingOccurrences(of: ",\"rule\"", with: ", \"rule\"").utf8)
        spaced += Array(",\"crc32\":\"\(hex(Checksum.crc32(spaced)))\"}\n".utf8)
        refused(spaced, "not in the form")
        folder.write("shards.json", good)
        _ = try ShardSet(manifestPath: path)
        try FileManager.default.removeItem(atPath: folder.file("shard-1.calldir"))
        try FileManager.default.copyItem(atPath: folder.file("shard-2.calldir"), toPath: folder.file("shard-1.calldir"))
        let error = #expect(throws: CallDirError.self) { try ShardSet(manifestPath: path) }
        #expect(error?.message.contains("shard shard-1.calldir is not the one") == true, "\(String(describing: error))")
    }
}
