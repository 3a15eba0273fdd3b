import CallDirFeed
import Foundation
import Testing
import TestSupport

/// Key rotation and revocation as TUF does it (issue 34, finding 6): a rotation statement
/// signed by the old key and the new moves followers to the new key with no reinstall and
/// keeps the deltas; a leaked key can neither jump serials out of reach nor survive rotation.
@Suite("Feed key rotation", .serialized, .tags(.endToEnd), .skippedInFastLoop)
struct FeedRotationTests {
    typealias Setup = FeedServerTests.Setup

    static func key(_ s: Setup, _ name: String) throws -> (path: String, publicKey: String) {
        let path = s.scratch.file(name)
        let keygen = try FeedBin.run(["keygen", "-o", path])
        guard keygen.status == 0 else { throw TestFailure("keygen: \(keygen.stderr)") }
        return (path, keygen.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func publish(_ s: Setup, _ name: String, feed: String? = nil, key: String, _ extra: [String] = []) throws {
        let result = try FeedBin.run(["publish", s.scratch.file(name), "--feed", feed ?? s.feed, "--key", key] + extra)
        guard result.status == 0 else { throw TestFailure("publish \(name): \(result.stderr)") }
    }

    static func state(_ s: Setup, _ index: String? = nil) throws -> FeedState {
        try FeedState.parse(Array(try #require(FeedBin.bytes((index ?? s.follower) + ".feed-state"))), name: "state")
    }

    @Test("publish --rotate-from: followers configured with the old key take the next versions through deltas, signed by the new key alone; a new follower walks the rotation too")
    func rotation() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            try #require(try s.update(server.url).status == 0)
            let newKey = try Self.key(s, "new.key")
            var numbers = s.v1
            for version in 2...3 {
                numbers = FeedBin.churned(numbers, fraction: 0.02, seed: UInt64(version))
                try FeedBin.compile(numbers, in: s.scratch, name: "v\(version).calldir")
                try Self.publish(s, "v\(version).calldir", key: newKey.path, version == 2 ? ["--rotate-from", s.scratch.file("feed.key")] : [])
                let result = try s.update(server.url)  // still --trusted-key with the old key
                #expect(result.status == 0 && result.stdout.contains("\"serial\":\(version),\"updated\":true,\"via\":\"delta\""),
                        "\(result.stdout)\(result.stderr)")
                #expect(FeedBin.bytes(s.follower) == FeedBin.bytes(s.scratch.file("v\(version).calldir")))
            }
            let signature = String(decoding: try #require(FeedBin.bytes(s.feed + "/manifest.json.sig")), as: UTF8.self)
            let newPublic = try FeedPublicKey(text: newKey.publicKey)
            #expect(signature.split(separator: "\n").count == 1 && signature.contains(newPublic.keyId))
            #expect(try Self.state(s).root?.keys == [newPublic])
            let fresh = s.scratch.file("follower/fresh.calldir")
            #expect(try s.update(server.url, index: fresh).status == 0)
            let verify = try FeedBin.run(["verify", "--feed", s.feed, "--trusted-key", s.publicKey])
            #expect(verify.status == 0, "\(verify.stderr)")
        }
    }

    @Test("a leaked key: a serial jump past the bound is refused; a smaller jump is installed, then the operator's rotation restores the honest feed and the leaked key is no longer trusted")
    func revocation() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            try #require(try s.update(server.url).status == 0)
            // The attacker's mirror: the honest folder, re-signed with the leaked key.
            let evil = s.scratch.file("evil")
            try FileManager.default.copyItem(atPath: s.feed, toPath: evil)
            let leaked = try FeedPrivateKey(fileText: String(contentsOfFile: s.scratch.file("feed.key"), encoding: .utf8), path: "k")
            func sign(serial: Int64) throws {
                var m = try FeedManifest.parse(Array(try #require(FeedBin.bytes(s.feed + "/manifest.json"))))
                m.serial = serial
                try Data(m.rendered()).write(to: URL(fileURLWithPath: evil + "/manifest.json"))
                try Data(try FeedSignature.render(manifest: m.rendered(), keys: [leaked])).write(to: URL(fileURLWithPath: evil + "/manifest.json.sig"))
            }
            let mirror = try ChildServer.hostile(root: evil)
            defer { mirror.stop() }
            try sign(serial: 1 + FeedPolicy.maxSerialStep + 1)
            let jump = try s.update(mirror.url)
            #expect(jump.status == 66 && jump.stderr.contains("jumps more than"), "\(jump.stdout)\(jump.stderr)")
            try sign(serial: 1000)
            try #require(try s.update(mirror.url).status == 0)
            #expect(try Self.state(s).serial == 1000)
            // The operator rotates away from the leaked key; the honest serial is 2.
            let newKey = try Self.key(s, "new.key")
            try FeedBin.compile(FeedBin.churned(s.v1, fraction: 0.02, seed: 2), in: s.scratch, name: "v2.calldir")
            try Self.publish(s, "v2.calldir", key: newKey.path, ["--rotate-from", s.scratch.file("feed.key")])
            let restored = try s.update(server.url)
            #expect(restored.status == 0 && restored.stdout.contains("\"serial\":2,\"updated\":true"), "\(restored.stdout)\(restored.stderr)")
            #expect(FeedBin.bytes(s.follower) == FeedBin.bytes(s.scratch.file("v2.calldir")))
            try sign(serial: 1001)
            let after = try s.update(mirror.url)
            #expect(after.status == 65 && after.stderr.contains("feed check 'untrusted-key' failed"), "\(after.stdout)\(after.stderr)")
        }
    }

    @Test("a publish --rotate-from that fails (a damaged NEW) leaves no rotation statement: publishing with the old key keeps followers updating, and the retried rotation succeeds")
    func failedRotationRecovers() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            try #require(try s.update(server.url).status == 0)
            let newKey = try Self.key(s, "new.key"), oldKey = s.scratch.file("feed.key")
            let v2 = try FeedBin.compile(FeedBin.churned(s.v1, fraction: 0.02, seed: 2), in: s.scratch, name: "v2.calldir")
            var damaged = try #require(FeedBin.bytes(v2))
            damaged[damaged.count / 2] ^= 0x5A  // a block's bytes: the full verification fails, after the rotation was begun
            try damaged.write(to: URL(fileURLWithPath: s.scratch.file("damaged.calldir")))
            let failed = try FeedBin.run(["publish", s.scratch.file("damaged.calldir"), "--feed", s.feed, "--key", newKey.path,
                                          "--rotate-from", oldKey])
            #expect(failed.status != 0, "\(failed.stdout)")
            #expect(!FileManager.default.fileExists(atPath: s.feed + "/root/2.json"), "a failed rotation left root/2.json")
            // The operator publishes with the old key after all: followers go on.
            try Self.publish(s, "v2.calldir", key: oldKey)
            let followed = try s.update(server.url)
            #expect(followed.status == 0 && followed.stdout.contains("\"serial\":2,\"updated\":true"), "\(followed.stdout)\(followed.stderr)")
            // A statement left by a killed rotation (Ctrl-C) does not stop the retry either.
            try FileManager.default.createDirectory(atPath: s.feed + "/root", withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: URL(fileURLWithPath: s.feed + "/root/2.json"))
            try FeedBin.compile(FeedBin.churned(s.v1, fraction: 0.02, seed: 3), in: s.scratch, name: "v3.calldir")
            let retry = try FeedBin.run(["publish", s.scratch.file("v3.calldir"), "--feed", s.feed, "--key", newKey.path,
                                         "--rotate-from", oldKey])
            #expect(retry.status == 0, "\(retry.stderr)")
            let rotated = try s.update(server.url)
            #expect(rotated.status == 0 && rotated.stdout.contains("\"serial\":3,\"updated\":true"), "\(rotated.stdout)\(rotated.stderr)")
            #expect(try Self.state(s).root?.keys == [try FeedPublicKey(text: newKey.publicKey)])
        }
    }

    @Test("after two rotations, a follower and verify --feed given the feed's current key with --root-version 3 take the feed; without it, 65")
    func currentKeyAfterTwoRotations() throws {
        try FeedAdversaryTests.withHostileServer { s, server in
            var signing = s.scratch.file("feed.key")
            var current = s.publicKey
            for version in 2...3 {
                let next = try Self.key(s, "k\(version).key")
                try FeedBin.compile(FeedBin.churned(s.v1, fraction: 0.02, seed: UInt64(version)), in: s.scratch, name: "v\(version).calldir")
                try Self.publish(s, "v\(version).calldir", key: next.path, ["--rotate-from", signing])
                (signing, current) = (next.path, next.publicKey)
            }
            let fresh = s.scratch.file("follower/fresh.calldir")
            let plain = try FeedBin.run(["update", "--feed", server.url, "--trusted-key", current, "--index", fresh])
            #expect(plain.status == 65, "\(plain.stderr)")
            let given = try FeedBin.run(["update", "--feed", server.url, "--trusted-key", current, "--root-version", "3",
                                         "--index", fresh, "--json"])
            #expect(given.status == 0 && given.stdout.contains("\"serial\":3,\"updated\":true"), "\(given.stdout)\(given.stderr)")
            #expect(FeedBin.bytes(fresh) == FeedBin.bytes(s.scratch.file("v3.calldir")))
            #expect(try Self.state(s, fresh).root?.version == 3)
            // The next rotation is walked from there.
            let k4 = try Self.key(s, "k4.key")
            try FeedBin.compile(FeedBin.churned(s.v1, fraction: 0.02, seed: 4), in: s.scratch, name: "v4.calldir")
            try Self.publish(s, "v4.calldir", key: k4.path, ["--rotate-from", signing])
            let walked = try FeedBin.run(["update", "--feed", server.url, "--trusted-key", current, "--root-version", "3",
                                          "--index", fresh, "--json"])
            #expect(walked.status == 0 && walked.stdout.contains("\"serial\":4,\"updated\":true"), "\(walked.stdout)\(walked.stderr)")
            let verify = try FeedBin.run(["verify", "--feed", s.feed, "--trusted-key", k4.publicKey, "--root-version", "4"])
            #expect(verify.status == 0, "\(verify.stderr)")
            let wrong = try FeedBin.run(["verify", "--feed", s.feed, "--trusted-key", k4.publicKey])
            #expect(wrong.status == 65, "\(wrong.stderr)")
        }
    }
}
