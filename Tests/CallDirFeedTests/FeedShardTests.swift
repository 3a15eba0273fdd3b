import CallDirFeed
import CallDirFeedTools
@testable import CallDirDevice
@testable import CallDirReader
import Foundation
import Synchronization
import Testing
import TestSupport

/// Issue 48, the feed's line: a list sharded over three Call Directory extensions
/// (`calldir shard --by size`) is published as a sharded feed (`calldir publish --shards`: a
/// channel per extension), served over HTTP on 127.0.0.1, and followed by a phone
/// (`FeedShardUpdater` over `ShardCoordinator`, one `SimulatedPhone` per extension) and by a
/// server (`calldir update --shards`). A change in one shard costs one channel's delta and one
/// extension's requests; an attacked channel is refused alone.
@Suite("Sharded feed", .serialized, .tags(.endToEnd), .skippedInFastLoop)
struct FeedShardTests {
    static let prefix = "com.example.Blocker"
    static let extensions = (1...3).map { "\(prefix).\($0)" }

    /// A list whose `--by size --max-entries 1000` shards are three: 1,500 blocked numbers and
    /// 1,300 labelled ones (shard 1: blocking; 2: both; 3: identification).
    struct List {
        var blocking: [Int64]
        var labels: [Int64: String]

        static func first() -> List {
            var rng = SeededGenerator(seed: 0x5_4A2D)
            var blocking = Set<Int64>(), labels: [Int64: String] = [:]
            while blocking.count < 1_500 { blocking.insert(Int64.random(in: 33_600_000_000...33_600_999_999, using: &rng)) }
            while labels.count < 1_300 { labels[Int64.random(in: 33_700_000_000...33_700_999_999, using: &rng)] = "Spam" }
            return List(blocking: blocking.sorted(), labels: labels)
        }

        /// The list with a change inside each of `shards`' intervals only (their bounds stay:
        /// no count before a boundary moves): shard 1, a blocked number moved by one; 2 and 3,
        /// 30 labels changed.
        func changing(_ shards: Set<Int>, version: Int) -> List {
            var list = self
            if shards.contains(1), let i = (10..<900).first(where: { blocking[$0] + 1 < blocking[$0 + 1] }) {
                list.blocking[i] += 1
            }
            let identified = labels.keys.sorted()
            for (shard, at) in [(2, 100), (3, 1_200)] where shards.contains(shard) {
                for n in identified[at..<(at + 30)] { list.labels[n] = "Changed v\(version)" }
            }
            return list
        }
    }

    /// A feed signed by `feed.key`, and the shards of each version published into it.
    struct Setup {
        let scratch = TempFolder()
        var feed: String { scratch.file("feed") }
        let key: FeedPublicKey
        let publicKey: String

        init() throws {
            let keygen = try FeedBin.run(["keygen", "-o", scratch.file("feed.key")])
            guard keygen.status == 0 else { throw TestFailure("keygen: \(keygen.stderr)") }
            publicKey = keygen.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            key = try FeedPublicKey(text: publicKey)
        }

        /// `list` compiled and sharded into `vN/` (three shards); returns vN/shards.json.
        @discardableResult
        func shard(_ list: List, version: Int, maxEntries: Int = 1000) throws -> String {
            let source = "v\(version).calldir"
            _ = try buildIndex(scratch, source, block: list.blocking.map(String.init), identify: list.labels.map { "\($0.key),\($0.value)" })
            let out = scratch.file("v\(version)")
            let result = try FeedBin.run(["shard", "--index", scratch.file(source), "--by", "size", "--max-entries", String(maxEntries),
                                          "--extension-prefix", FeedShardTests.prefix, "-o", out, "--tmpdir", scratch.path])
            guard result.status == 0 else { throw TestFailure("shard: \(result.stderr)") }
            let manifest = try ShardManifest(path: out + "/shards.json")
            guard manifest.shards.map(\.extensionIdentifier) == Array(FeedShardTests.extensions.prefix(2_800 / maxEntries + 1)) else {
                throw TestFailure("expected \(2_800 / maxEntries + 1) shards: \(manifest.shards)")
            }
            return out + "/shards.json"
        }

        /// `calldir publish --shards vN/shards.json --json`: the channels published.
        @discardableResult
        func publish(version: Int, _ extra: [String] = []) throws -> [String] {
            let result = try FeedBin.run(["publish", "--shards", scratch.file("v\(version)/shards.json"), "--feed", feed,
                                          "--key", scratch.file("feed.key"), "--json"] + extra)
            guard result.status == 0 else { throw TestFailure("publish --shards: \(result.stderr)") }
            let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let channels = json?["channels"] as? [[String: Any]] ?? []
            return channels.filter { $0["published"] as? Bool == true }.compactMap { $0["extension"] as? String }
        }

        func channel(_ id: String) -> String { feed + "/shards/" + id }
        func shardFile(version: Int, _ n: Int) -> String { scratch.file("v\(version)/shard-\(n).calldir") }
    }

    /// Requests and bytes per feed path, through the follower's transport.
    final class Counter: Sendable {
        let seen = Mutex<[(path: String, bytes: Int64)]>([])
        func reset() { seen.withLock { $0 = [] } }
        var all: [(path: String, bytes: Int64)] { seen.withLock { $0 } }
        func of(_ id: String) -> [(path: String, bytes: Int64)] { all.filter { $0.path.hasPrefix("shards/\(id)/") } }
        var bytes: Int64 { all.reduce(0) { $0 + $1.bytes } }
    }

    struct CountingTransport<Base: FeedTransport>: FeedTransport {
        let base: Base
        let counter: Counter
        func fetch(_ path: String, maxBytes: Int, ifNoneMatch: String?) async throws -> FeedFetched? {
            let fetched = try await base.fetch(path, maxBytes: maxBytes, ifNoneMatch: ifNoneMatch)
            counter.seen.withLock { $0.append((path, Int64(fetched?.bytes.count ?? 0))) }
            return fetched
        }
        func download(_ path: String, maxBytes: Int, into sink: FeedDownloadSink) async throws {
            defer { counter.seen.withLock { $0.append((path, sink.received)) } }
            try await base.download(path, maxBytes: maxBytes, into: sink)
        }
        func location(_ path: String) -> String { base.location(path) }
    }

    /// An app with three extensions: its App Group folder, one simulated device per extension.
    struct App {
        let root: SharedFolder
        let devices: [String: SimulatedPhone]
        let updater: FeedShardUpdater

        init(_ s: Setup, name: String) throws {
            let path = s.scratch.file(name)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            root = SharedFolder(path: path)
            var devices: [String: SimulatedPhone] = [:]
            for id in FeedShardTests.extensions { devices[id] = SimulatedPhone(folder: try root.shard(id), requestSize: 400) }
            self.devices = devices
            let shards = try ShardCoordinator(root: root, extensions: FeedShardTests.extensions, platform: { devices[$0]! })
            updater = FeedShardUpdater(follower: FeedFollower(trusted: [s.key]), shards: shards)
        }

        func update(_ url: String, counter: Counter) async throws -> FeedShardUpdater.Report {
            let client = HTTPFeedTransport.makeClient()
            do {
                let report = try await updater.update(transport: CountingTransport(base: HTTPFeedTransport(feedURL: url, client: client),
                                                                                   counter: counter))
                try await client.shutdown()
                return report
            } catch {
                try await client.shutdown()
                throw error
            }
        }

        func requests() -> [String: Int] { devices.mapValues { $0.simulator.history.count } }

        /// Each extension's store is its shard of `version` (`versions[i]` for extension i+1).
        func expectStores(_ s: Setup, versions: [Int], sourceLocation: SourceLocation = #_sourceLocation) throws {
            for (i, id) in FeedShardTests.extensions.enumerated() {
                let expected = try FeedPhoneTests.deviceEntries(s.shardFile(version: versions[i], i + 1))
                #expect(DeviceState(devices[id]!.simulator) == expected, "\(id) holds its shard of v\(versions[i])",
                        sourceLocation: sourceLocation)
            }
        }
    }

    /// v1 (`List.first()`) sharded, published and served over HTTP; an app that has followed it.
    static func followingV1() async throws -> (Setup, ChildServer, App) {
        let s = try Setup()
        try s.shard(List.first(), version: 1)
        try s.publish(version: 1)
        let server = try ChildServer.hostile(root: s.feed)
        let app = try App(s, name: "app")
        _ = try await app.update(server.url, counter: Counter())
        return (s, server, app)
    }

    static func loaded(_ report: FeedShardUpdater.Report) -> Bool {
        report.loads.allSatisfy { if case .loaded = $0.outcome { return true } else { return false } }
    }

    @Test("three shards published as channels; one shard's labels change: the phone downloads that channel's delta and the other two manifests alone, and only that extension receives requests; every store equals its shard")
    func oneShardChanges() async throws {
        let s = try Setup()
        defer { s.scratch.remove() }
        let v1 = List.first()
        try s.shard(v1, version: 1)
        #expect(try s.publish(version: 1) == Self.extensions)
        let server = try ChildServer.hostile(root: s.feed)
        defer { server.stop() }
        let counter = Counter()
        let app = try App(s, name: "app")
        let first = try await app.update(server.url, counter: counter)
        for (i, channel) in first.channels.enumerated() {
            let size = Int64(try fileContents(s.shardFile(version: 1, i + 1)).count)
            #expect(channel.outcome == .success(.installed(serial: 1, viaDelta: false, downloaded: size)), "\(channel)")
        }
        #expect(Self.loaded(first), "\(first.loads)")
        try app.expectStores(s, versions: [1, 1, 1])
        let fullBytes = counter.bytes, fullRequests = counter.all.count

        // v2: 30 labels of shard 2 change; shards 1 and 3 are byte for byte v1's.
        try s.shard(v1.changing([2], version: 2), version: 2)
        for n in [1, 3] { #expect(try fileContents(s.shardFile(version: 2, n)) == fileContents(s.shardFile(version: 1, n))) }
        #expect(try fileContents(s.shardFile(version: 2, 2)) != fileContents(s.shardFile(version: 1, 2)))
        let unchangedManifest = FeedBin.bytes(s.channel(Self.extensions[0]) + "/manifest.json")
        #expect(try s.publish(version: 2) == [Self.extensions[1]], "only shard 2's channel is published again")
        #expect(FeedBin.bytes(s.channel(Self.extensions[0]) + "/manifest.json") == unchangedManifest, "serial 1 stays")

        counter.reset()
        let before = app.requests()
        let second = try await app.update(server.url, counter: counter)
        guard case .success(.installed(2, true, let downloaded)) = second.channels[1].outcome else {
            Issue.record("shard 2: \(second.channels[1])")
            return
        }
        #expect(second.channels[0].outcome == .success(.upToDate(serial: 1)) && second.channels[2].outcome == .success(.upToDate(serial: 1)),
                "\(second.channels)")
        #expect(Self.loaded(second), "\(second.loads)")
        for id in [Self.extensions[0], Self.extensions[2]] {
            #expect(counter.of(id).map(\.path) == ["shards/\(id)/manifest.json", "shards/\(id)/manifest.json.sig"], "\(counter.of(id))")
        }
        let changed = counter.of(Self.extensions[1])
        #expect(changed.count == 3 && changed[2].path.hasPrefix("shards/\(Self.extensions[1])/delta/") && changed[2].bytes == downloaded,
                "\(changed)")
        #expect(!counter.all.contains { $0.path.contains("/index/") }, "no full index downloaded")
        let after = app.requests()
        #expect(after[Self.extensions[0]] == before[Self.extensions[0]] && after[Self.extensions[2]] == before[Self.extensions[2]],
                "no request to the unchanged extensions")
        let sent = app.devices[Self.extensions[1]]!.simulator.history.dropFirst(before[Self.extensions[1]]!)
        #expect(!sent.isEmpty && sent.allSatisfy { $0.kind == .incremental }, "shard 2 loaded as an update")
        try app.expectStores(s, versions: [2, 2, 2])
        print("sharded feed: first update \(fullRequests) requests, \(fullBytes) bytes; one shard changed: \(counter.all.count) requests, "
              + "\(counter.bytes) bytes (delta \(downloaded) bytes, shard 2 is \(try fileContents(s.shardFile(version: 2, 2)).count) bytes)")

        counter.reset()
        let third = try await app.update(server.url, counter: counter)
        #expect(third.channels.map(\.outcome) == [.success(.upToDate(serial: 1)), .success(.upToDate(serial: 2)), .success(.upToDate(serial: 1))])
        #expect(app.requests() == after, "nothing to load")
    }

    enum Attack: String, CaseIterable, Sendable { case rollback, signature, digest, anotherChannel }

    @Test("one channel attacked (TUF's rollback, a tampered signature, a wrong hash, another channel's manifest): refused with its check, its index, state and store untouched; the other shards update and load",
          arguments: Attack.allCases)
    func attackedChannel(_ attack: Attack) async throws {
        let (s, server, app) = try await Self.followingV1()
        defer { server.stop(); s.scratch.remove() }
        var list = List.first()
        let counter = Counter()
        let target = Self.extensions[1], channel = s.channel(target)
        let oldManifest = try #require(FeedBin.bytes(channel + "/manifest.json"))
        let oldSignature = try #require(FeedBin.bytes(channel + "/manifest.json.sig"))
        list = list.changing([1, 2, 3], version: 2)
        try s.shard(list, version: 2)
        #expect(try s.publish(version: 2) == Self.extensions)
        var installed = 1, now = 2
        if attack == .rollback {
            _ = try await app.update(server.url, counter: counter)
            try s.shard(list.changing([1, 2, 3], version: 3), version: 3)
            try s.publish(version: 3)
            (installed, now) = (2, 3)
        }
        let expected: FeedError.Check
        switch attack {
        case .rollback:
            try oldManifest.write(to: URL(fileURLWithPath: channel + "/manifest.json"))
            try oldSignature.write(to: URL(fileURLWithPath: channel + "/manifest.json.sig"))
            expected = .rollback
        case .signature:
            try FeedBin.flip(channel + "/manifest.json.sig", at: try #require(FeedBin.bytes(channel + "/manifest.json.sig")).count - 10)
            expected = .signature
        case .digest:
            let m = try FeedManifest.parse(Array(try #require(FeedBin.bytes(channel + "/manifest.json"))))
            try FeedBin.flip(channel + "/" + m.deltas[0].path)
            expected = .digest
        case .anotherChannel:
            // Shard 1's manifest, validly signed by the same key, served as shard 2's.
            for name in ["manifest.json", "manifest.json.sig"] {
                try FileManager.default.removeItem(atPath: channel + "/" + name)
                try FileManager.default.copyItem(atPath: s.channel(Self.extensions[0]) + "/" + name, toPath: channel + "/" + name)
            }
            expected = .feed
        }
        let folder = app.updater.shards.coordinator(for: target)!.folder
        let index = FeedBin.bytes(folder.indexPath), state = FeedBin.bytes(FeedState.path(forIndex: folder.indexPath))
        let before = app.requests()
        let report = try await app.update(server.url, counter: counter)
        guard case .failure(let error) = report.channels[1].outcome else {
            Issue.record("\(attack): shard 2 was not refused: \(report.channels[1])")
            return
        }
        #expect(error.check == expected, "\(error)")
        for i in [0, 2] {
            guard case .success(.installed(Int64(now), _, _)) = report.channels[i].outcome else {
                Issue.record("\(attack): \(report.channels[i])")
                continue
            }
        }
        #expect(Self.loaded(report), "\(report.loads)")
        #expect(FeedBin.bytes(folder.indexPath) == index && FeedBin.bytes(FeedState.path(forIndex: folder.indexPath)) == state)
        #expect(app.requests()[target] == before[target], "no request to the refused shard's extension")
        try app.expectStores(s, versions: [now, installed, now])
    }

    @Test("CLI: publish --shards, then update --shards keeps a server's folder of shards (and its shards.json) the feed's: a delta for the changed shard, the others up to date; a tampered channel fails (65) and the folder's shards.json is kept")
    func commandLineRoundTrip() throws {
        let s = try Setup()
        defer { s.scratch.remove() }
        let list = List.first()
        try s.shard(list, version: 1)
        let published = try FeedBin.run(["publish", "--shards", s.scratch.file("v1/shards.json"), "--feed", s.feed,
                                         "--key", s.scratch.file("feed.key")])
        #expect(published.status == 0 && published.stdout.contains("3 of 3 channel(s) published"), "\(published.stdout)\(published.stderr)")
        let server = try ChildServer.hostile(root: s.feed)
        defer { server.stop() }
        let local = s.scratch.file("server/shards.json")
        func update() throws -> (FeedBin.Result, [String: Any]) {
            let result = try FeedBin.run(["update", "--feed", server.url, "--trusted-key", s.publicKey, "--shards", local, "--json"])
            let json = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
            return (result, json)
        }
        func channels(_ json: [String: Any]) -> [[String: Any]] { json["channels"] as? [[String: Any]] ?? [] }
        func expectFolder(version: Int) {
            #expect(FeedBin.bytes(local) == FeedBin.bytes(s.scratch.file("v\(version)/shards.json")))
            for n in 1...3 { #expect(FeedBin.bytes(s.scratch.file("server/shard-\(n).calldir")) == FeedBin.bytes(s.shardFile(version: version, n))) }
        }

        let (first, firstJSON) = try update()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(channels(firstJSON).map { $0["via"] as? String } == ["full", "full", "full"] && firstJSON["shardsUpdated"] as? Bool == true,
                "\(first.stdout)")
        expectFolder(version: 1)

        try s.shard(list.changing([3], version: 2), version: 2)
        #expect(try s.publish(version: 2) == [Self.extensions[2]])
        let (second, secondJSON) = try update()
        #expect(second.status == 0, "\(second.stderr)")
        #expect(channels(secondJSON).map { $0["updated"] as? Bool } == [false, false, true], "\(second.stdout)")
        #expect(channels(secondJSON).last?["via"] as? String == "delta" && secondJSON["shardsUpdated"] as? Bool == true, "\(second.stdout)")
        expectFolder(version: 2)
        let lookup = try FeedBin.run(["lookup", "--shards", local, "+" + String(list.labels.keys.sorted()[1_210])])
        #expect(lookup.status == 0 && lookup.stdout.contains("Changed v2"), "\(lookup.stdout)\(lookup.stderr)")

        let (third, thirdJSON) = try update()
        #expect(third.status == 0 && channels(thirdJSON).allSatisfy { $0["updated"] as? Bool == false }
                && thirdJSON["shardsUpdated"] as? Bool == false, "\(third.stdout)")

        try s.shard(list.changing([1, 3], version: 3), version: 3)
        try s.publish(version: 3)
        let signature = s.channel(Self.extensions[0]) + "/manifest.json.sig"
        try FeedBin.flip(signature, at: try #require(FeedBin.bytes(signature)).count - 10)
        let (tampered, tamperedJSON) = try update()
        #expect(tampered.status == 65 && tampered.stderr.contains("feed check 'signature' failed"), "\(tampered.stderr)")
        #expect(channels(tamperedJSON).last?["via"] as? String == "delta", "shard 3 still updated: \(tampered.stdout)")
        #expect(FeedBin.bytes(local) == FeedBin.bytes(s.scratch.file("v2/shards.json")), "shards.json kept")

        let both = try FeedBin.run(["publish", s.shardFile(version: 1, 1), "--shards", s.scratch.file("v1/shards.json"),
                                    "--feed", s.feed, "--key", s.scratch.file("feed.key")])
        #expect(both.status == 64, "\(both.stderr)")
        let mixed = try FeedBin.run(["update", "--feed", server.url, "--trusted-key", s.publicKey, "--shards", local, "--index", local])
        #expect(mixed.status == 64, "\(mixed.stderr)")
    }

    @Test("fewer shards (3, then 2 as --max-entries grows): the channel no shard names gets an empty index, and the phone empties that extension's store while the other two take their new shards")
    func fewerShards() async throws {
        let (s, server, app) = try await Self.followingV1()
        defer { server.stop(); s.scratch.remove() }
        try s.shard(List.first(), version: 2, maxEntries: 1_500)
        #expect(try s.publish(version: 2) == Self.extensions, "two shards moved, the third channel retired")
        let retired = try FeedManifest.parse(Array(try #require(FeedBin.bytes(s.channel(Self.extensions[2]) + "/manifest.json"))))
        #expect(retired.serial == 2 && retired.index.deviceEntries == 0)
        #expect(try s.publish(version: 2) == [], "an empty channel stays as it is")
        let report = try await app.update(server.url, counter: Counter())
        for channel in report.channels {
            guard case .success(.installed(2, _, _)) = channel.outcome else { Issue.record("\(channel)"); continue }
        }
        #expect(Self.loaded(report), "\(report.loads)")
        for n in [1, 2] {
            #expect(DeviceState(app.devices[Self.extensions[n - 1]]!.simulator) == (try FeedPhoneTests.deviceEntries(s.shardFile(version: 2, n))))
        }
        #expect(DeviceState(app.devices[Self.extensions[2]]!.simulator).count == 0, "the retired extension's store is empty")
    }

    @Test("an unchanged channel stays (same serial) while over half its validity is left; past that it is published again with the same index (followers fetch two small files, install nothing); --rotate-from publishes every channel, and a server following with the old key walks the rotation and verifies shards.json with the new one")
    func refreshAndRotation() throws {
        let s = try Setup()
        defer { s.scratch.remove() }
        try s.shard(List.first(), version: 1)
        let key = try FeedPrivateKey(fileText: String(contentsOfFile: s.scratch.file("feed.key"), encoding: .utf8), path: "key")
        var options = FeedPublisher.Options()
        options.now = 1_000_000
        options.expiresAfter = 4 * 86_400
        func publish() throws -> [Int64?] {
            try FeedShardPublisher.publish(shards: s.scratch.file("v1/shards.json"), feed: s.feed, key: key, options: options)
                .map { $0.published?.manifest.serial }
        }
        #expect(try publish() == [1, 1, 1])
        options.now += 2 * 86_400 - 60  // over half of 4 days left
        #expect(try publish() == [nil, nil, nil], "unchanged channels keep serial 1")
        options.now += 120  // under half left
        #expect(try publish() == [2, 2, 2], "published again before they expire")
        let m = try FeedManifest.parse(Array(try #require(FeedBin.bytes(s.channel(Self.extensions[0]) + "/manifest.json"))))
        #expect(m.index.sha256 == FeedFiles.sha256(try MappedFile(path: s.shardFile(version: 1, 1))) && m.expires == options.now + 4 * 86_400)

        // Key rotation, through the commands (real clock).
        let server = try ChildServer.hostile(root: s.feed)
        defer { server.stop() }
        let local = s.scratch.file("server/shards.json")
        try s.publish(version: 1)
        let first = try FeedBin.run(["update", "--feed", server.url, "--trusted-key", s.publicKey, "--shards", local])
        #expect(first.status == 0, "\(first.stderr)")
        let newKey = s.scratch.file("new.key")
        let keygen = try FeedBin.run(["keygen", "-o", newKey])
        try #require(keygen.status == 0)
        let rotated = try FeedBin.run(["publish", "--shards", s.scratch.file("v1/shards.json"), "--feed", s.feed, "--key", newKey,
                                       "--rotate-from", s.scratch.file("feed.key")])
        #expect(rotated.status == 0 && rotated.stdout.contains("3 of 3 channel(s) published"), "\(rotated.stdout)\(rotated.stderr)")
        let signature = String(decoding: try #require(FeedBin.bytes(s.feed + "/shards.json.sig")), as: UTF8.self)
        #expect(signature.contains(try FeedPublicKey(text: keygen.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).keyId)
                && !signature.contains(s.key.keyId), "shards.json signed by the new key alone")
        let after = try FeedBin.run(["update", "--feed", server.url, "--trusted-key", s.publicKey, "--shards", local])
        #expect(after.status == 0 && after.stdout.contains("up to date: \(local)"), "\(after.stdout)\(after.stderr)")
    }
}

/// The names a sharded feed takes from outside: extension identifiers as channel folders and
/// feed ids, and the shard files a server writes from the feed's (not yet verified) shards.json.
@Suite("Sharded feed names")
struct FeedShardNameTests {
    @Test("a channel is shards/<extension id>; an identifier that is no feed id (., .., a slash, 65 characters) is refused (usage)")
    func channelPaths() throws {
        #expect(try FeedChannel.path("com.example.Blocker.1") == "shards/com.example.Blocker.1")
        for bad in [".", "..", "a/b", "", String(repeating: "a", count: 65), "com.example Blocker"] {
            #expect(throws: FeedError.self, "\(bad)") { _ = try FeedChannel.path(bad) }
        }
    }

    @Test("a shards.json from the feed naming a file that is not a plain *.calldir name (shards.json itself, a dot file) is refused before any file is written ('manifest')")
    func shardFileNames() throws {
        func manifest(_ files: [String]) -> [UInt8] {
            ShardManifest(rule: .kind, sourceChecksum: 1, sourceEntries: 2, shards: files.enumerated().map { i, file in
                ShardManifest.Shard(file: file, extensionIdentifier: "com.example.Blocker.\(i + 1)",
                                    numbers: NumberRange(first: 0, last: Int64.max), blocking: i == 0, identification: i == 1,
                                    deviceEntries: 1, bytes: 100, checksum: 7)
            }).encoded
        }
        #expect(try FeedShardFolderUpdater.parse(manifest(["shard-1.calldir", "shard-2.calldir"]), name: "s").shards.count == 2)
        for files in [["shards.json", "shard-2.calldir"], [".shard-1.calldir", "shard-2.calldir"], ["a.calldir", "a.calldir"]] {
            let error = #expect(throws: FeedError.self, "\(files)") { _ = try FeedShardFolderUpdater.parse(manifest(files), name: "s") }
            #expect(error?.check == .manifest)
        }
    }
}
