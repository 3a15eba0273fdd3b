import CallDirFeed
import Foundation
import Testing
import TestSupport

/// Pinning and the follower's own bounds (issue 45): a state file written before feed ids,
/// `--feed-id` against a pinned state, manifests from the future or valid for centuries, and
/// the 1 MiB of FEED-PROTOCOL.md for state files and rotation statements.
@Suite("Feed pinning and bounds", .serialized, .tags(.endToEnd), .skippedInFastLoop)
struct FeedPinningTests {
    typealias Setup = FeedServerTests.Setup

    static func key(_ s: Setup) throws -> FeedPrivateKey {
        try FeedPrivateKey(fileText: String(contentsOfFile: s.scratch.file("feed.key"), encoding: .utf8), path: "key")
    }

    /// Feed B: another list published three times with the feed's key (serials 1 to 3).
    static func feedB(_ s: Setup) throws -> String {
        let feedB = s.scratch.file("feedB")
        for version in 1...3 {
            try FeedBin.compile(FeedBin.numbers(count: 2000, seed: UInt64(50 + version)), in: s.scratch, name: "b\(version).calldir")
            let result = try FeedBin.run(["publish", s.scratch.file("b\(version).calldir"), "--feed", feedB, "--key", s.scratch.file("feed.key")])
            try #require(result.status == 0, "\(result.stderr)")
        }
        return feedB
    }

    static func state(_ s: Setup) throws -> FeedState {
        try FeedState.parse(Array(try #require(FeedBin.bytes(s.follower + ".feed-state"))), name: "state")
    }

    @Test("a state file written before feed ids (format 1) does not pin another feed's manifest signed by the same key (66, 'feed'); its own feed's next manifest is pinned")
    func formatOneStateUpgrade() throws {
        try FeedAdversaryTests.withHostileServer { s, serverA in
            try #require(try s.update(serverA.url).status == 0)
            let now = try Self.state(s)
            // What calldir 0.3.0 wrote: format 1, no feed, no expiry.
            try Data("""
            {
              "format": 1,
              "serial": \(now.serial),
              "sha256": "\(now.sha256)",
              "keyId": "\(now.keyId)",
              "manifestCreated": "\(FeedText.timestamp(now.manifestCreated))",
              "installed": "\(FeedText.timestamp(now.installed))"
            }

            """.utf8).write(to: URL(fileURLWithPath: s.follower + ".feed-state"))
            let serverB = try ChildServer.hostile(root: try Self.feedB(s))
            defer { serverB.stop() }
            let before = FeedBin.bytes(s.follower)
            let swapped = try s.update(serverB.url)
            #expect(swapped.status == 66 && swapped.stderr.contains("feed check 'feed' failed"), "\(swapped.stdout)\(swapped.stderr)")
            #expect(FeedBin.bytes(s.follower) == before)
            try FeedBin.compile(FeedBin.churned(s.v1, fraction: 0.02, seed: 2), in: s.scratch, name: "v2.calldir")
            try s.publish("v2.calldir")
            let own = try s.update(serverA.url)
            #expect(own.status == 0, "\(own.stderr)")
            #expect(try Self.state(s).feed == FeedAdversaryTests.feedId(s))
        }
    }

    @Test("--feed-id naming another feed than the pinned one is refused (64) with the state kept; a malformed --feed-id is refused (64)")
    func feedIdAgainstPinnedState() throws {
        try FeedAdversaryTests.withHostileServer { s, serverA in
            try #require(try s.update(serverA.url).status == 0)
            let feedB = try Self.feedB(s)
            let serverB = try ChildServer.hostile(root: feedB)
            defer { serverB.stop() }
            let stateBefore = FeedBin.bytes(s.follower + ".feed-state")
            let repinned = try s.update(serverB.url, ["--feed-id", try FeedAdversaryTests.feedId(s, feed: feedB)])
            #expect(repinned.status == 64, "\(repinned.stdout)\(repinned.stderr)")
            #expect(FeedBin.bytes(s.follower + ".feed-state") == stateBefore)
            for bad in ["bad id!", String(repeating: "a", count: 65), ""] {
                let result = try s.update(serverA.url, index: s.scratch.file("follower/new.calldir"), ["--feed-id", bad])
                #expect(result.status == 64 && result.stderr.contains("--feed-id"), "'\(bad)': \(result.status) \(result.stderr)")
            }
        }
    }

    @Test("a signed manifest created 30 days ahead, or expiring in 9999, is refused by followers and verify --feed (65, 'manifest')")
    func manifestTimesBounded() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            let key = try Self.key(s)
            let honest = try s.manifest()
            for (name, edit) in [("created +30d", { (m: inout FeedManifest) in m.created += 30 * 86400; m.expires += 30 * 86400 }),
                                 ("expires 9999", { (m: inout FeedManifest) in m.expires = FeedText.seconds(timestamp: "9999-12-31T00:00:00Z")! })] {
                var m = honest
                edit(&m)
                try Data(m.rendered()).write(to: URL(fileURLWithPath: s.feed + "/manifest.json"))
                try Data(try FeedSignature.render(manifest: m.rendered(), keys: [key])).write(to: URL(fileURLWithPath: s.feed + "/manifest.json.sig"))
                let result = try s.update(server.url, index: s.scratch.file("follower/\(name.prefix(7)).calldir"))
                #expect(result.status == 65 && result.stderr.contains("feed check 'manifest' failed"), "\(name): \(result.status) \(result.stdout)\(result.stderr)")
                let verify = try FeedBin.run(["verify", "--feed", s.feed, "--trusted-key", s.publicKey])
                #expect(verify.status == 65, "\(name): \(verify.stdout)\(verify.stderr)")
            }
        }
    }

    @Test("a state file and a rotation statement between 64 KiB and FEED-PROTOCOL.md's 1 MiB are read")
    func oneMebibyteFiles() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            try #require(try s.update(server.url).status == 0)
            let pad = "\"pad\": \"" + String(repeating: "x", count: 200_000) + "\",\n"
            func padded(_ bytes: Data) -> Data {
                var text = String(decoding: bytes, as: UTF8.self)
                text.insert(contentsOf: "\n  " + pad, at: text.index(after: text.startIndex))
                return Data(text.utf8)
            }
            let statePath = s.follower + ".feed-state"
            try padded(try #require(FeedBin.bytes(statePath))).write(to: URL(fileURLWithPath: statePath))
            let big = try s.update(server.url)
            #expect(big.status == 0, "state of \(FeedBin.bytes(statePath)?.count ?? 0) bytes: \(big.stderr)")
            // A rotation whose statement is padded the same way (signed again by both keys).
            let newKeyPath = s.scratch.file("new.key")
            let keygen = try FeedBin.run(["keygen", "-o", newKeyPath])
            try #require(keygen.status == 0)
            try FeedBin.compile(FeedBin.churned(s.v1, fraction: 0.02, seed: 2), in: s.scratch, name: "v2.calldir")
            let rotated = try FeedBin.run(["publish", s.scratch.file("v2.calldir"), "--feed", s.feed, "--key", newKeyPath,
                                           "--rotate-from", s.scratch.file("feed.key")])
            try #require(rotated.status == 0, "\(rotated.stderr)")
            let statement = padded(try #require(FeedBin.bytes(s.feed + "/root/2.json")))
            let newKey = try FeedPrivateKey(fileText: String(contentsOfFile: newKeyPath, encoding: .utf8), path: "new")
            try statement.write(to: URL(fileURLWithPath: s.feed + "/root/2.json"))
            try Data(try FeedSignature.render(manifest: Array(statement), keys: [try Self.key(s), newKey]))
                .write(to: URL(fileURLWithPath: s.feed + "/root/2.json.sig"))
            let walked = try s.update(server.url, index: s.scratch.file("follower/fresh.calldir"))
            #expect(walked.status == 0, "statement of \(statement.count) bytes: \(walked.stderr)")
        }
    }
}
