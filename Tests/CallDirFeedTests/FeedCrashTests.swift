import CallDirFeed
@testable import CallDirFeedTools
import CallDirReader
import Foundation
import Testing
import TestSupport

/// State and index move together (issue 34, finding 5): an update from v1 to v2 is failed at
/// every file-system step it takes (each open, write, fsync, close, rename and unlink in the
/// follower's folder, in turn, with ENOSPC or EIO), then the v1 manifest is replayed. Whatever
/// the failure left, v1 is never installed again once v2 was, and a clean update completes v2.
@Suite("Update feed: failures at every step", .serialized, .tags(.endToEnd), .skippedInFastLoop)
struct FeedCrashTests {
    #if DEBUG
    static let calls: [SystemCall] = [.open, .write, .fsync, .close, .rename, .unlink]

    @Test("a fault at any step of an update never lets a replayed older manifest roll the index back", arguments: [ENOSPC, EIO])
    func faultAtEveryStep(_ code: Int32) async throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let key = FeedPrivateKey()
        let v1 = try FeedBin.compile(FeedBin.numbers(count: 3000, seed: 1), in: scratch, name: "v1.calldir")
        let v2 = try FeedBin.compile(FeedBin.churned(FeedBin.numbers(count: 3000, seed: 1), fraction: 0.02, seed: 2),
                                     in: scratch, name: "v2.calldir")
        var options = FeedPublisher.Options()
        let feed = scratch.file("feed"), old = scratch.file("old-feed")
        _ = try FeedPublisher.publish(index: v1, feed: feed, key: key, options: options)
        try FileManager.default.copyItem(atPath: feed, toPath: old)  // what a replaying mirror keeps serving
        options.now += 60
        _ = try FeedPublisher.publish(index: v2, feed: feed, key: key, options: options)
        let v2Bytes = FeedBin.bytes(v2)
        var steps = 0
        for call in Self.calls {
            for after in 0..<64 {
                let folder = scratch.file("f-\(call.rawValue)-\(after)")
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
                let updater = FeedUpdater(indexPath: folder + "/index.calldir", trusted: [key.publicKey])
                _ = try await updater.update(transport: FolderFeedTransport(root: old))
                let fault = Syscalls.inject(call, errno: code, pathContaining: folder + "/", after: after)
                _ = try? await updater.update(transport: FolderFeedTransport(root: feed))
                let fired = Syscalls.removeFault(fault)
                let wasV2 = FeedBin.bytes(updater.indexPath) == v2Bytes
                // The attack: a mirror replays v1's (validly signed, unexpired) manifest.
                var replay: FeedError?
                do { _ = try await updater.update(transport: FolderFeedTransport(root: old)) } catch let error as FeedError { replay = error }
                if wasV2 {
                    #expect(replay?.check == .rollback, "\(call) after \(after): \(String(describing: replay))")
                    #expect(FeedBin.bytes(updater.indexPath) == v2Bytes, "\(call) after \(after): v1 reinstalled over v2")
                }
                // A clean update completes v2 whatever was left.
                _ = try await updater.update(transport: FolderFeedTransport(root: feed))
                #expect(FeedBin.bytes(updater.indexPath) == v2Bytes, "\(call) after \(after)")
                #expect(try updater.readState()?.serial == 2)
                try FileManager.default.removeItem(atPath: folder)
                if fired == 0 { break }  // every step of this call has been failed once
                steps += 1
            }
        }
        #expect(steps > 10, "the faults fired at only \(steps) steps")
    }
    #endif
}
