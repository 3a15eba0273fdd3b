import CallDirFeed
import Foundation
import Testing

/// The feed's format and checks without a server: manifest bytes, signatures, rollback,
/// expiry and the choice of download (FEED-PROTOCOL.md).
@Suite("Update feed format")
struct FeedFormatTests {
    static let a = String(repeating: "a", count: 64), b = String(repeating: "b", count: 64), c = String(repeating: "c", count: 64)

    static func manifest(serial: Int64 = 3, expires: Int64 = 1_764_158_400 + 7 * 86400, feed: String? = "feed-a") -> FeedManifest {
        FeedManifest(feed: feed, serial: serial, created: 1_764_158_400, expires: expires, keyId: "",
                     index: .init(path: "index/\(c).calldir", size: 1000, sha256: c, crc32: "0badcafe", deviceEntries: 42),
                     deltas: [.init(from: a, to: c, path: "delta/\(b).calldelta", size: 100, sha256: b),
                              .init(from: b, to: c, path: "delta/\(a).calldelta", size: 2000, sha256: a)])
    }

    static func signed(_ m: FeedManifest, by key: FeedPrivateKey) throws -> ([UInt8], [UInt8]) {
        var m = m
        m.keyId = key.publicKey.keyId
        let bytes = m.rendered()
        return (bytes, try FeedSignature.render(manifest: bytes, keys: [key]))
    }

    @Test("a manifest's bytes parse back to the same manifest; times are UTC text")
    func roundTrip() throws {
        let m = Self.manifest()
        let text = String(decoding: m.rendered(), as: UTF8.self)
        #expect(text.contains("\"created\": \"2025-11-26T12:00:00Z\""))
        #expect(try FeedManifest.parse(m.rendered()) == m)
    }

    @Test("every byte of the manifest and of the signature is covered: one altered byte is refused")
    func everyByteSigned() throws {
        let key = FeedPrivateKey()
        let (manifest, signature) = try Self.signed(Self.manifest(), by: key)
        #expect(try FeedSignature.verify(manifest: manifest, signature: signature, trusted: [key.publicKey]).serial == 3)
        for i in stride(from: 0, to: manifest.count, by: 7) {
            var altered = manifest
            altered[i] ^= 0x01
            #expect(throws: FeedError.self) { try FeedSignature.verify(manifest: altered, signature: signature, trusted: [key.publicKey]) }
        }
        var badSignature = signature
        badSignature[signature.count - 5] = badSignature[signature.count - 5] == 0x30 ? 0x31 : 0x30
        let error = #expect(throws: FeedError.self) { try FeedSignature.verify(manifest: manifest, signature: badSignature, trusted: [key.publicKey]) }
        #expect(error?.check == .signature)
    }

    @Test("mid-publication, one signature file over the previous and the new manifest verifies either, and nothing else")
    func acrossPublication() throws {
        let key = FeedPrivateKey()
        let (old, _) = try Self.signed(Self.manifest(serial: 3), by: key)
        let (new, _) = try Self.signed(Self.manifest(serial: 4), by: key)
        let both = try FeedSignature.render(manifest: old, keys: [key]) + FeedSignature.render(manifest: new, keys: [key])
        #expect(try FeedSignature.verify(manifest: old, signature: both, trusted: [key.publicKey]).serial == 3)
        #expect(try FeedSignature.verify(manifest: new, signature: both, trusted: [key.publicKey]).serial == 4)
        let (other, _) = try Self.signed(Self.manifest(serial: 5), by: key)
        let error = #expect(throws: FeedError.self) { try FeedSignature.verify(manifest: other, signature: both, trusted: [key.publicKey]) }
        #expect(error?.check == .signature)
    }

    @Test("an untrusted key is refused; during rotation either trusted key verifies")
    func keys() throws {
        let old = FeedPrivateKey(), new = FeedPrivateKey()
        let (manifest, signature) = try Self.signed(Self.manifest(), by: new)
        let error = #expect(throws: FeedError.self) { try FeedSignature.verify(manifest: manifest, signature: signature, trusted: [old.publicKey]) }
        #expect(error?.check == .untrustedKey)
        #expect(try FeedSignature.verify(manifest: manifest, signature: signature, trusted: [old.publicKey, new.publicKey]).serial == 3)
        #expect(try FeedPublicKey(text: new.publicKey.text) == new.publicKey)
        #expect(throws: FeedError.self) { try FeedPublicKey(text: "ed25519:1234") }
        let reread = try FeedPrivateKey(fileText: new.fileText, path: "k")
        #expect(reread.publicKey == new.publicKey)
    }

    @Test("rollback and freeze are refused; the smallest delta from the installed index is chosen, else the full index")
    func policy() throws {
        let m = Self.manifest()
        let state = FeedState(feed: nil, expires: nil, serial: 4, sha256: Self.a, keyId: "", manifestCreated: 0, installed: 0)
        #expect((#expect(throws: FeedError.self) { try FeedPolicy.plan(m, state: state, installedSHA256: Self.a, now: m.created) })?.check == .rollback)
        let same = FeedState(feed: nil, expires: nil, serial: 3, sha256: Self.a, keyId: "", manifestCreated: 0, installed: 0)
        #expect((#expect(throws: FeedError.self) { try FeedPolicy.plan(m, state: same, installedSHA256: Self.a, now: m.created) })?.check == .rollback)
        #expect((#expect(throws: FeedError.self) { try FeedPolicy.plan(m, state: nil, installedSHA256: nil, now: m.expires) })?.check == .expired)
        #expect(try FeedPolicy.plan(m, state: nil, installedSHA256: Self.a, now: m.created) == .delta(m.deltas[0]))
        // The delta from b is larger than the index: the index is cheaper.
        #expect(try FeedPolicy.plan(m, state: nil, installedSHA256: Self.b, now: m.created) == .full(m.index))
        #expect(try FeedPolicy.plan(m, state: nil, installedSHA256: nil, now: m.created) == .full(m.index))
        #expect(try FeedPolicy.plan(m, state: nil, installedSHA256: Self.c, now: m.created) == .upToDate)
        // Issue 45: the follower's own time bounds, and the pin from a state without a feed id.
        var future = m, forever = m
        future.created += FeedPolicy.maxClockSkew + 1
        future.expires += FeedPolicy.maxClockSkew + 1
        forever.expires = forever.created + FeedPolicy.maxValidity + 1
        for refused in [future, forever] {
            #expect((#expect(throws: FeedError.self) { try FeedPolicy.plan(refused, state: nil, installedSHA256: nil, now: m.created) })?.check == .manifest)
        }
        let unpinned = FeedState(feed: nil, expires: nil, serial: 2, sha256: Self.b, keyId: "", manifestCreated: 0, installed: 0)
        #expect(try FeedPolicy.plan(m, state: unpinned, installedSHA256: Self.b, now: m.created) == .full(m.index))
        let elsewhere = FeedState(feed: nil, expires: nil, serial: 2, sha256: String(repeating: "e", count: 64), keyId: "",
                                  manifestCreated: 0, installed: 0)
        #expect((#expect(throws: FeedError.self) { try FeedPolicy.plan(m, state: elsewhere, installedSHA256: nil, now: m.created) })?.check == .feed)
    }

    @Test("hostile manifests: paths leaving the folder, wrong types, duplicate members, unknown format")
    func hostileManifests() throws {
        let good = String(decoding: Self.manifest().rendered(), as: UTF8.self)
        for (from, to) in [("index/\(Self.c).calldir", "../etc/passwd"), ("index/\(Self.c).calldir", "/abs"),
                           ("\"format\": 2", "\"format\": 3"), ("\"feed\": \"feed-a\"", "\"feed\": \"a/b\""), ("\"serial\": 3", "\"serial\": 3.5"),
                           ("\"serial\": 3", "\"serial\": 3, \"serial\": 4"), ("\"deviceEntries\": 42", "\"deviceEntries\": -1"),
                           ("0badcafe", "0BADCAFE")] {
            let bad = Array(good.replacingOccurrences(of: from, with: to).utf8)
            let error = #expect(throws: FeedError.self, "\(to)") { try FeedManifest.parse(bad) }
            #expect(error?.check == .manifest)
        }
    }

    @Test("a download sink refuses the first byte past the announced size and a wrong SHA-256")
    func sink() throws {
        let data: [UInt8] = Array(repeating: 7, count: 100)
        let sha = data.withUnsafeBytes { FeedDigest.hex($0) }
        var written = 0
        let sink = FeedDownloadSink(path: "f", size: 100, sha256: sha) { written += $0.count }
        try data.withUnsafeBytes { try sink.append($0) }
        try sink.finish()
        let over = FeedDownloadSink(path: "f", size: 99, sha256: sha) { _ in }
        #expect((#expect(throws: FeedError.self) { try data.withUnsafeBytes { try over.append($0) } })?.check == .size)
        let wrong = FeedDownloadSink(path: "f", size: 100, sha256: Self.a) { _ in }
        try data.withUnsafeBytes { try wrong.append($0) }
        #expect((#expect(throws: FeedError.self) { try wrong.finish() })?.check == .digest)
        #expect(written == 100)
    }

    @Test("durations and timestamps")
    func text() {
        #expect(FeedText.duration("7d") == 604_800)
        #expect(FeedText.duration("90s") == 90)
        #expect(FeedText.duration("-1h") == nil)
        #expect(FeedText.seconds(timestamp: FeedText.timestamp(1_764_158_400)) == 1_764_158_400)
        #expect(FeedText.seconds(timestamp: "2026-13-01T00:00:00Z") == nil)
    }

    @Test("the manifest names its feed (format 2); format 1 is still read; a pinned feed refuses another feed's manifest and a format-1 one")
    func feedIdentity() throws {
        let m = Self.manifest()
        let legacy = Self.manifest(feed: nil)
        #expect(String(decoding: m.rendered(), as: UTF8.self).hasPrefix("{\n  \"format\": 2,\n  \"feed\": \"feed-a\",\n"))
        #expect(String(decoding: legacy.rendered(), as: UTF8.self).contains("\"format\": 1,"))
        #expect(try FeedManifest.parse(legacy.rendered()) == legacy)
        #expect(try FeedManifest.parse(m.rendered()).feed == "feed-a")
        let pinned = FeedState(feed: "feed-a", expires: 2_000_000_000, serial: 2, sha256: Self.b, keyId: "", manifestCreated: 0, installed: 0)
        #expect(try FeedPolicy.plan(m, state: pinned, installedSHA256: Self.a, now: m.created) == .delta(m.deltas[0]))
        var other = m
        other.feed = "feed-b"
        for refused in [other, legacy] {
            #expect((#expect(throws: FeedError.self) { try FeedPolicy.plan(refused, state: pinned, installedSHA256: Self.a, now: m.created) })?.check == .feed)
            #expect((#expect(throws: FeedError.self) {
                try FeedPolicy.plan(refused, state: nil, installedSHA256: nil, now: m.created, pinnedFeed: "feed-a")
            })?.check == .feed)
        }
        #expect(FeedError(.feed, "").exitCode == 66)
        // The state keeps the pin and the expiry; a format-1 state (neither) is still read.
        #expect(try FeedState.parse(pinned.rendered(), name: "s") == pinned)
        let old = #"{"format": 1, "serial": 3, "sha256": "\#(Self.a)", "keyId": "k", "manifestCreated": "2026-11-26T12:00:00Z", "installed": "2026-11-26T12:00:00Z"}"#
        let read = try FeedState.parse(Array(old.utf8), name: "s")
        #expect(read.serial == 3 && read.feed == nil && read.expires == nil)
    }

    @Test("control characters from the network are escaped in an error's text")
    func errorsArePrintable() {
        let error = FeedError(.transport, "the server answered 500 \u{1B}[2J\r\u{9B}x", path: "http://h/\u{7}")
        #expect(error.description == "http://h/\\u{7}: feed check 'transport' failed: the server answered 500 \\u{1b}[2J\\u{d}\\u{9b}x")
    }

    @Test("FEED-PROTOCOL.md's example (the golden manifest of format 2): its signature verifies with the key printed there and it parses to feed, serial and delta")
    func formatExampleVerifies() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("FEED-PROTOCOL.md"), encoding: .utf8)
        let example = try #require(text.range(of: "## Example\n\nTwo publications").map { String(text[$0.upperBound...]) })
        let blocks = example.components(separatedBy: "```\n").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        try #require(blocks.count >= 2)
        let key = try #require(example.split(separator: "`").first { $0.hasPrefix("ed25519:") }.map(String.init))
        let manifest = try FeedSignature.verify(manifest: Array(blocks[0].utf8), signature: Array(blocks[1].utf8),
                                                trusted: [try FeedPublicKey(text: key)])
        #expect(manifest.feed == "lists.example-spam" && manifest.serial == 2 && manifest.deltas.count == 1)
    }

    @Test("a rotation statement is adopted only when signed by a current key and a key it names, for the next version and this feed")
    func rotationStatement() throws {
        let old = FeedPrivateKey(), new = FeedPrivateKey(), stranger = FeedPrivateKey()
        let root = FeedRoot(version: 1, keys: [old.publicKey], serial: 0)
        let statement = FeedRoot(version: 2, keys: [new.publicKey], serial: 7).rendered(feed: "feed-a")
        let next = try root.next(statement: statement, signature: try FeedSignature.render(manifest: statement, keys: [old, new]),
                                 feed: "feed-a", name: "root/2.json")
        #expect(next == FeedRoot(version: 2, keys: [new.publicKey], serial: 7))
        for signers in [[new], [old], [stranger, new]] {
            #expect(throws: FeedError.self, "\(signers.map(\.publicKey.keyId))") {
                try root.next(statement: statement, signature: try FeedSignature.render(manifest: statement, keys: signers),
                              feed: "feed-a", name: "root/2.json")
            }
        }
        let both = try FeedSignature.render(manifest: statement, keys: [old, new])
        #expect((#expect(throws: FeedError.self) { try root.next(statement: statement, signature: both, feed: "feed-b", name: "r") })?.check == .feed)
        let skipped = FeedRoot(version: 3, keys: [new.publicKey], serial: 7).rendered(feed: "feed-a")
        #expect(throws: FeedError.self) {
            try root.next(statement: skipped, signature: try FeedSignature.render(manifest: skipped, keys: [old, new]), feed: "feed-a", name: "r")
        }
    }
}
