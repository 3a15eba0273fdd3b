import CallDirFeed
import Foundation
import Testing
import TestSupport

/// The update feed over real HTTP: `calldir publish` writes a feed folder, nginx (Debian's)
/// serves it, `calldir update` follows it (issue 25); a hostile server attacks the follower.
@Suite("Update feed over HTTP", .serialized, .tags(.endToEnd), .skippedInFastLoop)
struct FeedServerTests {
    /// A feed with v1 published and a follower installed from it, ready for v2.
    struct Setup {
        let scratch = TempFolder()
        var feed: String { scratch.file("feed") }
        var follower: String { scratch.file("follower/index.calldir") }
        let publicKey: String
        let v1: [Int64]

        init() throws {
            try FileManager.default.createDirectory(atPath: scratch.file("follower"), withIntermediateDirectories: true)
            let keygen = try FeedBin.run(["keygen", "-o", scratch.file("feed.key")])
            guard keygen.status == 0 else { throw TestFailure("keygen: \(keygen.stderr)") }
            publicKey = keygen.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            v1 = FeedBin.numbers(count: 3000, seed: 1)
            try FeedBin.compile(v1, in: scratch, name: "v1.calldir")
            try publish("v1.calldir")
        }

        func publish(_ name: String, _ extra: [String] = []) throws {
            let result = try FeedBin.run(["publish", scratch.file(name), "--feed", feed, "--key", scratch.file("feed.key")] + extra)
            guard result.status == 0 else { throw TestFailure("publish \(name): \(result.stderr)") }
        }

        func update(_ url: String, index: String? = nil, _ extra: [String] = []) throws -> FeedBin.Result {
            try FeedBin.run(["update", "--feed", url, "--trusted-key", publicKey, "--index", index ?? follower, "--json"] + extra)
        }

        func manifest() throws -> FeedManifest {
            try FeedManifest.parse(Array(FileManager.default.contents(atPath: feed + "/manifest.json")!))
        }
    }

    @Test("nginx: a follower at v1 reaches v5 through deltas; one offline since v1 with --keep 2 takes the full index",
          .enabled(if: ChildServer.nginxPath != nil, "nginx is not installed (scripts/setup --tests installs it)"))
    func nginxHappyPath() throws {
        let s = try Setup()
        defer { s.scratch.remove() }
        guard let nginx = try ChildServer.nginx(root: s.feed, scratch: s.scratch) else { return }
        defer { nginx.stop() }
        let offline = s.scratch.file("follower/offline.calldir")
        for index in [s.follower, offline] {
            let first = try s.update(nginx.url, index: index)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("\"via\":\"full\""))
        }
        var numbers = s.v1
        for version in 2...5 {
            numbers = FeedBin.churned(numbers, fraction: 0.02, seed: UInt64(version))
            try FeedBin.compile(numbers, in: s.scratch, name: "v\(version).calldir")
            try s.publish("v\(version).calldir", ["--keep", "2"])
            let result = try s.update(nginx.url)
            try #require(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("\"serial\":\(version),\"updated\":true,\"via\":\"delta\""), "\(result.stdout)")
            #expect(FeedBin.bytes(s.follower) == FeedBin.bytes(s.scratch.file("v\(version).calldir")))
            let state = try FeedState.parse(Array(try #require(FeedBin.bytes(s.follower + ".feed-state"))), name: "state")
            #expect(state.serial == Int64(version))
        }
        let again = try s.update(nginx.url)
        #expect(again.status == 0 && again.stdout.contains("\"updated\":false"), "\(again.stdout)\(again.stderr)")
        let late = try s.update(nginx.url, index: offline)
        #expect(late.status == 0, "\(late.stderr)")
        #expect(late.stdout.contains("\"serial\":5,\"updated\":true,\"via\":\"full\""), "\(late.stdout)")
        #expect(FeedBin.bytes(offline) == FeedBin.bytes(s.scratch.file("v5.calldir")))
        let verify = try FeedBin.run(["verify", "--feed", s.feed, "--trusted-key", s.publicKey])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdout.hasPrefix("ok: \(s.feed): serial 5"))
    }

    enum Attack: String, CaseIterable, Sendable {
        case manifestByte, signatureByte, untrustedKey, rollback, expired, deltaDigest, indexDigest
        case longerThanAnnounced, neverEnding, anotherBase, missingFile, slowServer
    }

    @Test("a hostile feed is refused, the installed index byte-identical, the error naming the check",
          arguments: Attack.allCases)
    func attack(_ attack: Attack) throws {
        let s = try Setup()
        defer { s.scratch.remove() }
        let server = try ChildServer.hostile(root: s.feed)
        defer { server.stop() }
        let first = try s.update(server.url)
        try #require(first.status == 0, "\(first.stderr)")
        let signatureV1 = FeedBin.bytes(s.feed + "/manifest.json.sig")!
        let manifestV1 = FeedBin.bytes(s.feed + "/manifest.json")!
        let v2 = FeedBin.churned(s.v1, fraction: 0.02, seed: 2)
        try FeedBin.compile(v2, in: s.scratch, name: "v2.calldir")
        try s.publish("v2.calldir", attack == .expired ? ["--expires", "1s"] : [])
        let m = try s.manifest()
        let delta = s.feed + "/" + m.deltas[0].path
        var extra: [String] = []
        var index = s.follower
        func flip(_ path: String, at offset: Int? = nil) throws { try FeedBin.flip(path, at: offset) }
        func rules(_ rules: [String: String]) throws {
            try JSONSerialization.data(withJSONObject: rules).write(to: URL(fileURLWithPath: s.scratch.file("rules.json")))
        }
        let expected: (status: Int32, check: String)
        switch attack {
        case .manifestByte:
            let text = String(decoding: FeedBin.bytes(s.feed + "/manifest.json")!, as: UTF8.self)
            let serialAt = text.utf8.count - text.drop(while: { $0 != "2" }).utf8.count  // the serial's digit
            try flip(s.feed + "/manifest.json", at: serialAt)
            expected = (65, "signature")
        case .signatureByte:
            try flip(s.feed + "/manifest.json.sig", at: FeedBin.bytes(s.feed + "/manifest.json.sig")!.count - 10)
            expected = (65, "signature")
        case .untrustedKey:
            let other = FeedPrivateKey()
            let sig = try FeedSignature.render(manifest: Array(FeedBin.bytes(s.feed + "/manifest.json")!), keys: [other])
            try Data(sig).write(to: URL(fileURLWithPath: s.feed + "/manifest.json.sig"))
            expected = (65, "untrusted-key")
        case .rollback:
            let second = try s.update(server.url)
            try #require(second.status == 0, "\(second.stderr)")
            try manifestV1.write(to: URL(fileURLWithPath: s.feed + "/manifest.json"))
            try signatureV1.write(to: URL(fileURLWithPath: s.feed + "/manifest.json.sig"))
            expected = (66, "rollback")
        case .expired:
            sleep(2)
            expected = (66, "expired")
        case .deltaDigest:
            try flip(delta)
            expected = (67, "digest")
        case .indexDigest:
            // A follower whose installed index has no delta: it takes the full index.
            index = s.scratch.file("follower/other.calldir")
            try FeedBin.compile(FeedBin.numbers(count: 500, seed: 99), in: s.scratch, name: "follower/other.calldir")
            try flip(s.feed + "/" + m.index.path)
            expected = (67, "digest")
        case .longerThanAnnounced:
            try rules([m.deltas[0].path: "extra"])
            expected = (67, "size")
        case .neverEnding:
            try rules([m.deltas[0].path: "endless"])
            expected = (67, "size")
        case .anotherBase:
            // A validly signed manifest whose delta (with matching digests) starts from another index.
            // (v0 is close to v2, so the delta is smaller than the index and is chosen.)
            let v0 = try FeedBin.compile(FeedBin.churned(v2, fraction: 0.02, seed: 7), in: s.scratch, name: "v0.calldir")
            let wrong = s.scratch.file("wrong.calldelta")
            let diff = try FeedBin.run(["diff", v0, s.scratch.file("v2.calldir"), "-o", wrong])
            try #require(diff.status == 0, "\(diff.stderr)")
            let bytes = FeedBin.bytes(wrong)!
            let sha = bytes.withUnsafeBytes { FeedDigest.hex($0) }
            try bytes.write(to: URL(fileURLWithPath: s.feed + "/delta/\(sha).calldelta"))
            var forged = m
            forged.deltas[0].path = "delta/\(sha).calldelta"
            forged.deltas[0].size = Int64(bytes.count)
            forged.deltas[0].sha256 = sha
            let key = try FeedPrivateKey(fileText: String(contentsOfFile: s.scratch.file("feed.key"), encoding: .utf8), path: "key")
            try Data(forged.rendered()).write(to: URL(fileURLWithPath: s.feed + "/manifest.json"))
            try Data(try FeedSignature.render(manifest: forged.rendered(), keys: [key]))
                .write(to: URL(fileURLWithPath: s.feed + "/manifest.json.sig"))
            expected = (67, "base")
        case .missingFile:
            try FileManager.default.removeItem(atPath: delta)
            expected = (67, "missing")
        case .slowServer:
            try rules(["manifest.json": "slow"])
            extra = ["--timeout", "1"]
            expected = (69, "timeout")
        }
        let before = FeedBin.bytes(index)
        let stateBefore = FeedBin.bytes(index + ".feed-state")
        let result = try s.update(server.url, index: index, extra)
        #expect(result.status == expected.status, "\(result.stderr)")
        #expect(result.stderr.contains("feed check '\(expected.check)' failed"), "\(result.stderr)")
        #expect(FeedBin.bytes(index) == before)
        #expect(FeedBin.bytes(index + ".feed-state") == stateBefore)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: s.scratch.file("follower"))
            .filter { $0.contains(".tmp.") || $0.hasSuffix(".feed-new") || $0.hasSuffix(".feed-delta") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
