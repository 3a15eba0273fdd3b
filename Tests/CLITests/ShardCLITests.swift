import CallDirReader
import Foundation
import Testing
import TestSupport

/// `calldir shard` as a user runs it: shards and a manifest that `ShardSet` opens, a table or
/// the manifest as JSON, and exit statuses scripts can use.
@Suite("calldir shard")
struct ShardCLITests {
    @Test("by size and by kind: files, table, JSON; shards that answer as the list")
    func shardsTheSampleList() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let list = folder.file("list.calldir")
        try buildIndex(block: (0..<3_000).map { String(33_100_000_000 + Int64($0) * 7) } + ["33200000000-33200009999"],
                       identify: (0..<500).map { "\(33_100_000_000 + Int64($0) * 21),Caller \($0 % 9)" }, output: list)
        let bySize = try CLI.run(["shard", "--index", list, "--by", "size", "--max-entries", "4000",
                                  "--extension-prefix", "com.example.Blocker", "-o", folder.file("size")])
        #expect(bySize.status == 0, "\(bySize.stderr)")
        #expect(bySize.stdout.contains("shard-1.calldir  com.example.Blocker.1  blocking+identification  0-"), "\(bySize.stdout)")
        #expect(bySize.stdout.contains("wrote 4 shards and \(folder.file("size"))/shards.json from \(list) (13,500 entries)"), "\(bySize.stdout)")
        let set = try ShardSet(manifestPath: folder.file("size/shards.json"), verify: true)
        #expect(set.manifest.shards.map(\.deviceEntries) == [4_000, 4_000, 4_000, 1_500])
        let index = try CallDirIndex(path: list)
        for n: Int64 in [33_100_000_000, 33_100_000_021, 33_100_020_993, 33_200_005_000, 33_200_010_000] {
            #expect(try set.lookup(n).action == index.lookup(n).action && set.lookup(n).label == index.lookup(n).label, "\(n)")
        }
        // Each shard in an extension of its own: every entry held once, a failure costs one shard.
        let simulated = try CLI.run(["simulate", "--shards", folder.file("size/shards.json")])
        #expect(simulated.status == 0, "\(simulated.stderr)")
        #expect(simulated.stdout.contains("com.example.Blocker.2  shard-2.calldir  blocking+identification  4,000 entries in 1 request"))
        #expect(simulated.stdout.contains("4 extensions hold 13,500 entries") && simulated.stdout.contains("at most 4,000 entries to send again"),
                "\(simulated.stdout)")
        // `lookup --shards` answers as `lookup --index` (ranges read as each shard's part of them).
        let probes = (0..<600).map { String(33_100_000_000 + Int64($0) * 37) } + ["33200009999", "anonymous", "+33 2 00 00 50 00"]
        func answers(_ source: [String]) throws -> [String] {
            let run = try CLI.run(["lookup"] + source + ["--json", "-"], stdin: probes.joined(separator: "\n") + "\n")
            #expect(run.status == 0 || run.status == 1, "\(run.stderr)")
            return run.stdout.split(separator: "\n").map {
                $0.replacingOccurrences(of: #","(blockedRange|labelRange)":\{[^}]*\}"#, with: "", options: .regularExpression)
            }
        }
        let unsharded = try answers(["--index", list])
        #expect(unsharded.count == probes.count && unsharded.contains { $0.contains(#""label":"Caller 3""#) })
        #expect(try answers(["--shards", folder.file("size/shards.json")]) == unsharded)
        let byKind = try CLI.run(["shard", "--index", list, "--by", "kind", "--extension-prefix", "com.example.Blocker",
                                  "-o", folder.file("kind"), "--json"])
        #expect(byKind.status == 0 && byKind.stdout == String(decoding: fileBytes(folder.file("kind/shards.json")), as: UTF8.self))
        #expect(byKind.stdout.contains(#""rule":"kind""#) && byKind.stdout.contains(#""kinds":["identify"],"deviceEntries":500"#))
    }

    @Test("by category: one extension per category, a switch each in Settings")
    func shardsByCategory() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let scam = folder.file("scam.calldir"), survey = folder.file("survey.calldir")
        try buildIndex(block: ["33100000001", "33100000002"], identify: ["33100000002,Scam"], output: scam)
        try buildIndex(block: ["33100000002"], identify: ["33100000002,Survey", "33100000003,Survey"], output: survey)
        let run = try CLI.run(["shard", "--by", "category", "--category", "scam=" + scam, "--category", "survey=" + survey,
                               "--extension-prefix", "com.example.Blocker", "-o", folder.file("out")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("shard-scam.calldir  com.example.Blocker.scam  blocking+identification  every number  3 entries"), "\(run.stdout)")
        #expect(run.stdout.contains("shard-survey.calldir  com.example.Blocker.survey  blocking+identification  every number  3 entries"))
        let shared = try CLI.run(["lookup", "--shards", folder.file("out/shards.json"), "--json", "33100000002"])
        #expect(shared.stdout.contains(#""label":"Scam""#) && shared.stdout.contains(#""blocked":true"#), "\(shared.stdout)")
        let simulated = try CLI.run(["simulate", "--shards", folder.file("out/shards.json")])
        #expect(simulated.status == 0 && simulated.stdout.contains("2 extensions hold 6 entries"), "\(simulated.stdout)")
        for bad in [["--category", "scam"], ["--category", "a.b=" + scam], ["--category", "x=" + scam, "--index", scam],
                    ["--category", "x=" + scam, "--category", "x=" + survey]] {
            let refused = try CLI.run(["shard", "--by", "category"] + bad + ["--extension-prefix", "a.b", "-o", folder.file("bad")])
            #expect(refused.status == 64, "\(bad): \(refused.stderr)")
        }
    }

    @Test("simulate --shards: an update of one category asks one extension; a switched-off one is never asked; launches per reloads")
    func simulatesUpdatesAndSwitches() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let identify = (0..<500).map { "\(33_100_000_000 + Int64($0) * 21),Caller \($0 % 9)" }
        let v1: [Int64] = (0..<3_000).map { 33_100_000_000 + Int64($0) * 7 }
        var v2 = v1
        v2[5] += 1  // one number replaced: one removal and one addition, blocking only
        try buildIndex(block: v1.map(String.init), identify: identify, output: folder.file("v1.calldir"))
        try buildIndex(block: v2.map(String.init), identify: identify, output: folder.file("v2.calldir"))
        for v in ["v1", "v2"] {
            let cut = try CLI.run(["shard", "--index", folder.file(v + ".calldir"), "--by", "kind", "--extension-prefix", "com.example.B",
                                   "-o", folder.file(v)])
            #expect(cut.status == 0, "\(cut.stderr)")
        }
        let update = try CLI.run(["simulate", "--shards", folder.file("v2/shards.json"), "--from", folder.file("v1/shards.json"),
                                  "--request-size", "1000", "--reloads-per-launch", "1", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(update.stdout.utf8)) as? [String: Any])
        let exts = try #require(doc["extensions"] as? [[String: Any]])
        #expect(exts.map { $0["requests"] as? Int } == [1, 0] && exts.map { $0["entriesSent"] as? Int } == [2, 0], "\(update.stdout)")
        #expect(doc["launches"] as? Int == 1 && doc["ok"] as? Bool == true)

        let full = try CLI.run(["simulate", "--shards", folder.file("v2/shards.json"), "--request-size", "1000", "--reloads-per-launch", "2",
                                "--off", "com.example.B.2"])
        #expect(full.status == 0, "\(full.stderr)")
        #expect(full.stdout.contains("com.example.B.1  shard-1.calldir  blocking  3,000 entries in 3 requests"), "\(full.stdout)")
        #expect(full.stdout.contains("com.example.B.2  shard-2.calldir  identification  off in Settings: not asked"))
        #expect(full.stdout.contains("at 2 reloads per launch: 2 launches to finish"), "\(full.stdout)")
        let misuse = try CLI.run(["simulate", "--index", folder.file("v1.calldir"), "--off", "x"])
        #expect(misuse.status == 64)
    }

    @Test("usage errors exit 64, a damaged index 1, too many shards 2 with nothing written")
    func exitStatuses() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let list = folder.file("list.calldir")
        try buildIndex(block: ["33100000000-33100009999"], output: list)
        let noMax = try CLI.run(["shard", "--index", list, "--by", "size", "--extension-prefix", "a.b", "-o", folder.file("o")])
        #expect(noMax.status == 64 && noMax.stderr.contains("--by size needs --max-entries"))
        let tooMany = try CLI.run(["shard", "--index", list, "--by", "size", "--max-entries", "2", "--extension-prefix", "a.b",
                                   "-o", folder.file("many")])
        #expect(tooMany.status == 2 && tooMany.stderr.contains("5000 shards of at most 2 entries"), "\(tooMany.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("many/shards.json")))
        var bytes = fileBytes(list)
        bytes[0x40 + 20] ^= 0x10
        folder.write("damaged.calldir", bytes)
        let damaged = try CLI.run(["shard", "--index", folder.file("damaged.calldir"), "--by", "kind", "--extension-prefix", "a.b",
                                   "-o", folder.file("d")])
        #expect(damaged.status == 1, "\(damaged.stderr)")
    }
}
