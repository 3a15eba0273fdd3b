import CallDirFeed
import Foundation
import Testing
import TestSupport

/// `calldir update` against the attacks of issue 34 (TUF's threat list), each played by the
/// hostile server on 127.0.0.1: another feed's manifest signed by the same key, a trickling
/// server (body or headers), an update that outlasts --timeout, escape sequences in an
/// unsigned file, temporaries of a killed update, and an --index that is not a regular file.
@Suite("Update feed adversary", .serialized, .tags(.endToEnd), .skippedInFastLoop)
struct FeedAdversaryTests {
    typealias Setup = FeedServerTests.Setup

    /// A feed with v1 published (`Setup`), served by the hostile server while `body` runs.
    static func withHostileServer(_ body: (Setup, ChildServer) throws -> Void) throws {
        let s = try Setup()
        defer { s.scratch.remove() }
        let server = try ChildServer.hostile(root: s.feed)
        defer { server.stop() }
        try body(s, server)
    }

    /// A private FIFO and a symbolic link (to a small file) in the follower's folder.
    static func notRegularFiles(_ s: Setup) throws -> (fifo: String, link: String, target: String) {
        let fifo = s.scratch.file("follower/fifo.calldir")
        try #require(mkfifo(fifo, 0o600) == 0)
        let target = s.scratch.file("follower/target.calldir")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: target))
        let link = s.scratch.file("follower/link.calldir")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        return (fifo, link, target)
    }

    static func expectUntouched(fifo: String, link: String, target: String) {
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        #expect(lstat(link, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
        #expect(FeedBin.bytes(target) == Data("keep me".utf8))
    }

    /// The follower installs v1; v2 is published, its delta edited by `edit`, stored under its
    /// new SHA-256 and named by a manifest re-signed with the feed's key (a publisher's fault).
    static func publishV2(_ s: Setup, _ server: ChildServer, editingItsDelta edit: (inout Data) -> Void) throws {
        try #require(try s.update(server.url).status == 0)
        try FeedBin.compile(FeedBin.churned(s.v1, fraction: 0.02, seed: 2), in: s.scratch, name: "v2.calldir")
        try s.publish("v2.calldir")
        var m = try s.manifest()
        var bytes = try #require(FeedBin.bytes(s.feed + "/" + m.deltas[0].path))
        edit(&bytes)
        let sha = bytes.withUnsafeBytes { FeedDigest.hex($0) }
        try bytes.write(to: URL(fileURLWithPath: s.feed + "/delta/\(sha).calldelta"))
        (m.deltas[0].path, m.deltas[0].sha256) = ("delta/\(sha).calldelta", sha)
        let key = try FeedPrivateKey(fileText: String(contentsOfFile: s.scratch.file("feed.key"), encoding: .utf8), path: "key")
        try Data(m.rendered()).write(to: URL(fileURLWithPath: s.feed + "/manifest.json"))
        try Data(try FeedSignature.render(manifest: m.rendered(), keys: [key])).write(to: URL(fileURLWithPath: s.feed + "/manifest.json.sig"))
    }

    static func rules(_ s: Setup, _ rules: [String: String]) throws {
        try JSONSerialization.data(withJSONObject: rules).write(to: URL(fileURLWithPath: s.scratch.file("rules.json")))
    }

    static func feedId(_ s: Setup, feed: String? = nil) throws -> String {
        let m = try FeedManifest.parse(Array(try #require(FeedBin.bytes((feed ?? s.feed) + "/manifest.json"))))
        return try #require(m.feed)
    }

    @Test("mix-and-match: a follower of feed A is served feed B's manifest (same key, higher serial): refused (66, 'feed'), index kept; --feed-id pins before the first update")
    func anotherFeedsManifest() throws {
        let s = try Setup()
        defer { s.scratch.remove() }
        let serverA = try ChildServer.hostile(root: s.feed)
        defer { serverA.stop() }
        let first = try s.update(serverA.url)
        try #require(first.status == 0, "\(first.stderr)")
        // Feed B: another list published three times with the same key (serials 1 to 3).
        let feedB = s.scratch.file("feedB")
        for version in 1...3 {
            try FeedBin.compile(FeedBin.numbers(count: 2000, seed: UInt64(50 + version)), in: s.scratch, name: "b\(version).calldir")
            let result = try FeedBin.run(["publish", s.scratch.file("b\(version).calldir"), "--feed", feedB, "--key", s.scratch.file("feed.key")])
            try #require(result.status == 0, "\(result.stderr)")
        }
        #expect(try Self.feedId(s) != Self.feedId(s, feed: feedB))
        let serverB = try ChildServer.hostile(root: feedB)
        defer { serverB.stop() }
        let before = FeedBin.bytes(s.follower), stateBefore = FeedBin.bytes(s.follower + ".feed-state")
        let swapped = try s.update(serverB.url)
        #expect(swapped.status == 66, "\(swapped.stdout)\(swapped.stderr)")
        #expect(swapped.stderr.contains("feed check 'feed' failed"), "\(swapped.stderr)")
        #expect(FeedBin.bytes(s.follower) == before && FeedBin.bytes(s.follower + ".feed-state") == stateBefore)
        // A new follower told the feed id refuses B at its very first update, and takes A.
        let fresh = s.scratch.file("follower/fresh.calldir")
        let pinned = try s.update(serverB.url, index: fresh, ["--feed-id", try Self.feedId(s)])
        #expect(pinned.status == 66 && pinned.stderr.contains("feed check 'feed' failed"), "\(pinned.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fresh))
        let right = try s.update(serverA.url, index: fresh, ["--feed-id", try Self.feedId(s)])
        #expect(right.status == 0, "\(right.stderr)")
    }

    enum Trickle: String, CaseIterable, Sendable { case manifestBody, manifestHeaders, deltaBody }

    @Test("slow retrieval: a server trickling a byte every half second (headers or body) is cut off as stalled (69, 'timeout') after the stall window",
          arguments: Trickle.allCases)
    func trickle(_ trickle: Trickle) throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            try #require(try s.update(server.url).status == 0)
            try FeedBin.compile(FeedBin.churned(s.v1, fraction: 0.02, seed: 2), in: s.scratch, name: "v2.calldir")
            try s.publish("v2.calldir")
            let delta = try s.manifest().deltas[0].path
            switch trickle {
            case .manifestBody: try Self.rules(s, ["manifest.json": "trickle"])
            case .manifestHeaders: try Self.rules(s, ["manifest.json": "trickle-head"])
            case .deltaBody: try Self.rules(s, [delta: "trickle"])
            }
            let before = FeedBin.bytes(s.follower)
            let result = try FeedBin.run(["update", "--feed", server.url, "--trusted-key", s.publicKey, "--index", s.follower,
                                          "--stall-window", "2"], limit: 60)
            #expect(!result.killed, "update still running after 60 s against a trickling server")
            #expect(result.status == 69, "\(result.stderr)")
            #expect(result.stderr.contains("feed check 'timeout' failed") && result.stderr.contains("stalled"), "\(result.stderr)")
            #expect(FeedBin.bytes(s.follower) == before)
        }
    }

    @Test("--timeout is the whole update: a server fast enough for the minimum rate but too slow for the time limit is cut off (69)")
    func wholeUpdateDeadline() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            try Self.rules(s, ["manifest.json": "trickle"])
            let result = try FeedBin.run(["update", "--feed", server.url, "--trusted-key", s.publicKey, "--index", s.follower,
                                          "--min-rate", "1", "--stall-window", "1", "--timeout", "3"], limit: 60)
            #expect(!result.killed, "update still running after 60 s with --timeout 3")
            #expect(result.status == 69 && result.stderr.contains("time limit (--timeout 3 s)"), "\(result.stderr)")
        }
    }

    @Test("escape sequences in an unsigned signature file reach the terminal escaped")
    func networkTextIsEscaped() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            try Data("ed25519 \u{1B}]0;owned\u{07}\u{1B}[2J\r\n".utf8).write(to: URL(fileURLWithPath: s.feed + "/manifest.json.sig"))
            let result = try s.update(server.url)
            #expect(result.status == 65, "\(result.stderr)")
            #expect(!result.stderr.utf8.contains(0x1B) && !result.stderr.utf8.contains(0x07) && !result.stderr.utf8.contains(0x0D))
            #expect(result.stderr.contains("\\u{1b}]0;owned"), "\(result.stderr)")
        }
    }

    @Test("a temporary left by a killed update (its owner gone) is removed by the next update")
    func staleTemporariesRemoved() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            // The name AtomicFile gives the download beside the index, with a PID that cannot be running.
            let stale = s.scratch.file("follower/.index.calldir.feed-new.calldir.tmp.999999999.AbC123")
            try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: stale))
            let result = try s.update(server.url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: stale))
        }
    }

    @Test("--index naming a FIFO or a symbolic link is refused (64) and left as it is, as the -o outputs' check does")
    func indexThatIsNotARegularFile() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            let (fifo, link, target) = try Self.notRegularFiles(s)
            for (path, word) in [(fifo, "a FIFO"), (link, "a symbolic link")] {
                let result = try s.update(server.url, index: path)
                #expect(result.status == 64, "\(path): \(result.stdout)\(result.stderr)")
                #expect(result.stderr.contains(word), "\(result.stderr)")
            }
            Self.expectUntouched(fifo: fifo, link: link, target: target)
        }
    }

    @Test("a damaged delta that the signed manifest names (its SHA-256 matching) is reported as damaged (67, 'digest'), not as a local write failure (74)")
    func damagedDelta() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            try Self.publishV2(s, server, editingItsDelta: { $0[$0.count / 2] ^= 0x5A })
            let before = FeedBin.bytes(s.follower)
            let result = try s.update(server.url)
            #expect(result.status == 67 && result.stderr.contains("feed check 'digest' failed") && result.stderr.contains("damaged"),
                    "\(result.status) \(result.stderr)")
            #expect(FeedBin.bytes(s.follower) == before)
            let verify = try FeedBin.run(["verify", "--feed", s.feed, "--trusted-key", s.publicKey])
            #expect(verify.status == 67, "\(verify.stderr)")
        }
    }

    @Test("serve --follow --index naming a FIFO or a symbolic link is refused at start (64), left as it is")
    func followIndexThatIsNotARegularFile() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            let (fifo, link, target) = try Self.notRegularFiles(s)
            for path in [fifo, link] {
                let result = try FeedBin.run(["--index", path, "--port", "0", "--follow", server.url, "--trusted-key", s.publicKey],
                                             binary: "calldir-serve", limit: 30)
                #expect(!result.killed && result.status == 64, "\(path): \(result.stderr)")
            }
            Self.expectUntouched(fifo: fifo, link: link, target: target)
        }
    }

    /// CRC-32/ISO-HDLC (zlib's), as FORMAT.md's checks use it.
    static func crc32(_ bytes: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test("verify --feed applies each delta as followers do: a delta whose base size is wrong (every CRC valid) is refused by followers and by verify --feed (67, 'base')")
    func verifyChecksDeltasAsFollowers() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            try Self.publishV2(s, server, editingItsDelta: { bytes in
                func put(_ value: UInt32, at offset: Int) {
                    withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
                }
                bytes[44] &+= 64  // the size of OLD (u64 at 44), then the header's and the trailer's CRCs
                put(Self.crc32(bytes[0..<60]), at: 60)
                put(Self.crc32(bytes[0..<(bytes.count - 16)]), at: bytes.count - 16)
            })
            let follower = try s.update(server.url)
            #expect(follower.status == 67 && follower.stderr.contains("feed check 'base' failed"), "\(follower.status) \(follower.stderr)")
            let verify = try FeedBin.run(["verify", "--feed", s.feed, "--trusted-key", s.publicKey])
            #expect(verify.status == 67 && verify.stderr.contains("feed check 'base' failed"), "\(verify.status) \(verify.stdout)\(verify.stderr)")
        }
    }
}
