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
}
