import CallDirFeed
import CallDirReader
@testable import CallDirFeedTools
import Foundation
import Testing

/// `calldir publish` composes the delta from each older base out of the feed's delta to the
/// previous index and today's diff (DeltaComposer): the feed must not change by a byte for it.
@Suite("Feed publisher: composed deltas")
struct FeedComposeTests {
    /// Version `v` of a list with blocked numbers, ranges and labelled numbers, each version
    /// churned from the one before (numbers replaced, labels changed, ranges added and dropped).
    static func writeVersion(_ v: Int, blocked: [Int64], identified: [(Int64, String)], in scratch: TempFolder) throws -> String {
        var block = blocked.map(String.init)
        if v % 2 == 1 { block.append("2015550000-2015550099") }  // a blocked range on odd days
        block.append("30155\(v)0000-30155\(v)0999")               // one that moves every day
        var identify = identified.map { "\($0.0),\($0.1)" }
        identify.append("3125550000-3125550099,Range label \(v % 3)")  // a labelled range whose label changes
        let output = scratch.file("v\(v).calldir")
        let result = try FeedBin.run(["compile", "--country", "1", "--sort",
                                      "--block", scratch.write("v\(v)-block.txt", block),
                                      "--identify", scratch.write("v\(v)-identify.csv", identify), "-o", output])
        guard result.status == 0 else { throw TestFailure("compile v\(v) failed: \(result.stderr)") }
        return output
    }

    @Test("every delta of every publish (diffed or composed from the previous ones) is the bytes `calldir diff` writes for its pair")
    func composedDeltasAreDiffs() async throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let feed = scratch.file("feed")
        let key = FeedPrivateKey()
        var blocked = FeedBin.numbers(count: 6000, seed: 11)
        var identified = FeedBin.numbers(count: 1500, seed: 12).map { ($0, "Caller \($0 % 7)") }
        var paths: [String: String] = [:]  // index SHA-256 -> the compiled file
        var composedTotal = 0
        for v in 1...7 {
            if v > 1 {
                blocked = FeedBin.churned(blocked, fraction: 0.03, seed: UInt64(100 + v))
                // Identified: some numbers replaced, some relabelled, one moved between kinds.
                identified = FeedBin.churned(identified.map(\.0), fraction: 0.02, seed: UInt64(200 + v)).map { n in
                    (n, n % 11 == Int64(v) ? "Relabelled \(v)" : "Caller \(n % 7)")
                }
            }
            let path = try Self.writeVersion(v, blocked: blocked, identified: identified, in: scratch)
            if v == 6 {
                // A damaged delta in the folder (the previous manifest's SHA-256 no longer
                // matches) is not composed from: that base is diffed instead.
                let manifest = try FeedManifest.parse(Array(FeedBin.bytes(feed + "/manifest.json")!))
                let victim = feed + "/" + manifest.deltas[1].path
                var bytes = Array(FeedBin.bytes(victim)!)
                bytes[bytes.count / 2] ^= 0x40
                try Data(bytes).write(to: URL(fileURLWithPath: victim))
            }
            var options = FeedPublisher.Options()
            options.keep = 4
            options.now = Int64(v) * 1000
            let outcome = try FeedPublisher.publish(index: path, feed: feed, key: key, options: options)
            paths[outcome.manifest.index.sha256] = path
            let deltas = outcome.manifest.deltas
            #expect(deltas.count == min(v - 1, 4))
            // Day 1 and 2 have nothing to compose from; day 6 one damaged delta; else all but yesterday's.
            #expect(outcome.composedDeltas == (v <= 2 ? 0 : deltas.count - 1 - (v == 6 ? 1 : 0)), "day \(v)")
            composedTotal += outcome.composedDeltas
            for (k, entry) in deltas.enumerated() {
                let plain = scratch.file("plain-\(v)-\(k).calldelta")
                let result = try FeedBin.run(["diff", "-q", paths[entry.from]!, path, "-o", plain])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(FeedBin.bytes(feed + "/" + entry.path) == FeedBin.bytes(plain),
                        "day \(v): the delta from \(entry.from.prefix(12)) differs from calldir diff's")
            }
        }
        #expect(composedTotal == 11)
        let report = try await FeedFolderCheck.run(feed: feed, trusted: [key.publicKey], now: 7001)
        #expect(report.checkedFiles == 5)
    }

    @Test("a NEW damaged past what its open checks is refused after today's diff ran beside its verification: the feed folder as before, byte for byte")
    func damagedNewPublishesNothing() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let feed = scratch.file("feed")
        let key = FeedPrivateKey()
        var blocked = FeedBin.numbers(count: 6000, seed: 21)
        let identified = FeedBin.numbers(count: 1500, seed: 22).map { ($0, "Caller \($0 % 7)") }
        var options = FeedPublisher.Options()
        for v in 1...3 {
            if v > 1 { blocked = FeedBin.churned(blocked, fraction: 0.03, seed: UInt64(300 + v)) }
            let path = try Self.writeVersion(v, blocked: blocked, identified: identified, in: scratch)
            options.now = Int64(v) * 1000
            guard v == 3 else { _ = try FeedPublisher.publish(index: path, feed: feed, key: key, options: options); continue }
            let before = Self.contents(of: feed)
            // The whole-file CRC in the trailer: the open and the diff do not check it, the full verification does.
            var bytes = Array(FeedBin.bytes(path)!)
            bytes[bytes.count - 16] ^= 0x40
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            _ = try CallDirIndex(path: path)
            #expect(throws: (any Error).self) { _ = try CallDirIndex(path: path, verify: true) }
            #expect(throws: (any Error).self) { _ = try FeedPublisher.publish(index: path, feed: feed, key: key, options: options) }
            #expect(Self.contents(of: feed) == before)
        }
    }

    /// Every file under `folder` by its relative path, with its bytes.
    static func contents(of folder: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for case let name as String in FileManager.default.enumerator(atPath: folder)! {
            if let data = FeedBin.bytes(folder + "/" + name) { files[name] = data }
        }
        return files
    }
}
