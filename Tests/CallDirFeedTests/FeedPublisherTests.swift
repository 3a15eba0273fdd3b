import CallDirFeed
@testable import CallDirFeedTools
import Foundation
import Testing
import TestSupport

/// `calldir publish` as a library: deltas from the last --keep indexes, pruning by grace
/// period, and a follower reading the folder through the same checks as over HTTP.
@Suite("Feed publisher")
struct FeedPublisherTests {
    @Test("--keep 1 --grace: files named by no manifest of the grace period are pruned, the rest verify and serve a follower")
    func pruneAndFollow() async throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let feed = scratch.file("feed")
        let key = FeedPrivateKey()
        var numbers = FeedBin.numbers(count: 2000, seed: 5)
        var shas: [String] = []
        for version in 1...4 {
            if version > 1 { numbers = FeedBin.churned(numbers, fraction: 0.02, seed: UInt64(version)) }
            let path = try FeedBin.compile(numbers, in: scratch, name: "v\(version).calldir")
            var options = FeedPublisher.Options()
            options.keep = 1
            options.grace = 500
            options.now = Int64(version) * 1000
            let outcome = try FeedPublisher.publish(index: path, feed: feed, key: key, options: options)
            #expect(outcome.manifest.serial == Int64(version))
            #expect(outcome.manifest.deltas.count == (version == 1 ? 0 : 1))
            shas.append(outcome.manifest.index.sha256)
        }
        // Kept: manifests 4 and 3 (the current and the previous), so indexes 2 (a base of 3), 3, 4.
        let indexes = Set(try FileManager.default.contentsOfDirectory(atPath: feed + "/index"))
        #expect(indexes == Set(shas[1...3].map { "\($0).calldir" }))
        #expect(try FileManager.default.contentsOfDirectory(atPath: feed + "/delta").count == 2)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: feed + "/history")) == ["3.json", "4.json"])
        let report = try await FeedFolderCheck.run(feed: feed, trusted: [key.publicKey], now: 4001)
        #expect(report.checkedFiles == 2)

        // A follower at v3 takes the delta; one at v1 the index; both end byte-identical to v4.
        for (start, viaDelta) in [(3, true), (1, false)] {
            let installed = scratch.file("follower-\(start).calldir")
            try FileManager.default.copyItem(atPath: scratch.file("v\(start).calldir"), toPath: installed)
            var updater = FeedUpdater(indexPath: installed, trusted: [key.publicKey])
            updater.now = { 4001 }
            let result = try await updater.update(transport: FolderFeedTransport(root: feed))
            let size = viaDelta ? Int64(FeedBin.bytes(feed + "/" + (try FeedManifest.parse(Array(FeedBin.bytes(feed + "/manifest.json")!)).deltas[0].path))!.count)
                                : Int64(FeedBin.bytes(scratch.file("v4.calldir"))!.count)
            #expect(result == .installed(serial: 4, viaDelta: viaDelta, downloaded: size))
            #expect(FeedBin.bytes(installed) == FeedBin.bytes(scratch.file("v4.calldir")))
        }
    }
}
