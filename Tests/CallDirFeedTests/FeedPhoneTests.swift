import CallDirFeed
import CallDirFeedTools
@testable import CallDirDevice
@testable import CallDirPatch
@testable import CallDirReader
import CallDirSimulator
import Testing

#if canImport(Glibc)
import Glibc
import TestSupport
#endif

/// Issue 25, the app's side, end to end on Linux: a publisher publishes v1..v5 with churn into
/// a signed feed folder (`--keep 2`); a phone (the follower, the installer and the reload
/// coordinator of CallDirPatch, the extension's request of the reader, `CallKitSimulator` as
/// the device) follows it through the folder transport. One call per publication takes it from
/// "v(n) loaded" to "v(n+1) loaded" through a delta patched on the phone and an incremental
/// load; a phone offline since v1 takes the full index. Each store must equal the index's
/// device entries (a complete load of the index into a fresh simulator).
@Suite("Feed follower on a phone", .serialized, .tags(.endToEnd), .skippedInFastLoop)
struct FeedPhoneTests {
    /// A phone with its App Group folder, following `feed`.
    struct Phone {
        let folder: SharedFolder
        let device: SimulatedPhone
        let updater: FeedPhoneUpdater

        init(scratch: TempFolder, name: String, key: FeedPublicKey, clock: Clock) throws {
            let path = scratch.file(name)
            guard mkdir(path, 0o755) == 0 else { throw CallDirError(.io, "cannot create", path: path) }
            folder = SharedFolder(path: path)
            device = SimulatedPhone(folder: folder, requestSize: 900)
            let coordinator = ReloadCoordinator(folder: folder, platform: device)
            updater = FeedPhoneUpdater(follower: FeedFollower(trusted: [key], now: { clock.now }), coordinator: coordinator)
        }

        func update(_ feed: String) async throws -> FeedPhoneUpdater.Result {
            try await updater.update(transport: FolderFeedTransport(root: feed))
        }
    }

    final class Clock: @unchecked Sendable { var now: Int64 = 0 }

    /// What a device holds after a complete load of `index` from nothing.
    static func deviceEntries(_ path: String) throws -> DeviceState {
        let simulator = CallKitSimulator()
        try loadFully(DeviceLoader(index: CallDirIndex(path: path, verify: true), requestSize: 100_000), into: simulator)
        return DeviceState(simulator)
    }

    /// Five lists: blocking numbers and labelled numbers, each with 3% of its numbers removed,
    /// as many added, and some labels changed.
    /// Publishes `list` as version `version` (`--keep 2`, created at version x 1,000 s), then
    /// moves the phones' clock just past it.
    static func publish(_ list: String, version: Int, feed: String, key: FeedPrivateKey, clock: Clock, scratch: TempFolder) throws {
        var options = FeedPublisher.Options()
        options.keep = 2
        options.now = Int64(version) * 1_000
        options.temporaryFolder = scratch.path
        _ = try FeedPublisher.publish(index: list, feed: feed, key: key, options: options)
        clock.now = Int64(version) * 1_000 + 1
    }

    static func lists(_ scratch: TempFolder) throws -> [String] {
        var rng = SeededGenerator(seed: 0xFEED_F0)
        var blocking = Set((0..<3_000).map { _ in Int64.random(in: 33_600_000_000...33_600_099_999, using: &rng) })
        var identification: [Int64: String] = [:]
        for _ in 0..<800 { identification[Int64.random(in: 33_700_000_000...33_700_099_999, using: &rng)] = "Spam" }
        var paths: [String] = []
        for version in 1...5 {
            if version > 1 {
                for n in blocking where Int.random(in: 0..<100, using: &rng) < 3 { blocking.remove(n) }
                for _ in 0..<90 { blocking.insert(Int64.random(in: 33_600_000_000...33_600_099_999, using: &rng)) }
                for n in identification.keys where Int.random(in: 0..<100, using: &rng) < 3 { identification[n] = nil }
                for n in identification.keys where Int.random(in: 0..<100, using: &rng) < 2 { identification[n] = "Scam v\(version)" }
                for _ in 0..<25 { identification[Int64.random(in: 33_700_000_000...33_700_099_999, using: &rng)] = "Bank" }
            }
            let name = "v\(version).calldir"
            _ = try buildIndex(scratch, name, block: blocking.sorted().map(String.init),
                                 identify: identification.map { "\($0.key),\($0.value)" })
            paths.append(scratch.file(name))
        }
        return paths
    }

    @Test("v1..v5 published with churn: a phone at v1 reaches v5 through deltas patched on the phone and incremental loads; one offline since v1 takes the full index (--keep 2); every store equals the index's device entries")
    func phoneFollowsFeed() async throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let feed = scratch.file("feed")
        let key = FeedPrivateKey()
        let clock = Clock()
        let lists = try Self.lists(scratch)
        let expected = try lists.map(Self.deviceEntries)
        func publish(_ version: Int) throws {
            try Self.publish(lists[version - 1], version: version, feed: feed, key: key, clock: clock, scratch: scratch)
        }
        let online = try Phone(scratch: scratch, name: "online", key: key.publicKey, clock: clock)
        let offline = try Phone(scratch: scratch, name: "offline", key: key.publicKey, clock: clock)
        try publish(1)
        for phone in [online, offline] {
            let result = try await phone.update(feed)
            #expect(result == .installed(serial: 1, viaDelta: false, downloaded: Int64(try MappedFile(path: lists[0]).count)))
            #expect(DeviceState(phone.device.simulator) == expected[0])
        }
        for version in 2...5 {
            try publish(version)
            let before = online.device.simulator.history.count
            let result = try await online.update(feed)
            guard case .installed(let serial, let viaDelta, let downloaded) = result else {
                Issue.record("v\(version): \(result)")
                continue
            }
            #expect(serial == Int64(version) && viaDelta, "v\(version) through a delta")
            #expect(downloaded < Int64(try MappedFile(path: lists[version - 1]).count), "a delta is smaller than the index")
            #expect(try online.folder.read(online.folder.indexPath, limit: 1 << 26) == (try fileContents(lists[version - 1])),
                    "the patched index is v\(version) byte for byte")
            let requests = online.device.simulator.history.dropFirst(before)
            #expect(!requests.isEmpty && requests.allSatisfy { $0.kind == .incremental }, "v\(version - 1) -> v\(version) loaded as an update")
            #expect(DeviceState(online.device.simulator) == expected[version - 1])
            #expect(try online.updater.readState()?.serial == Int64(version))
        }
        #expect(try await online.update(feed) == .upToDate(serial: 5))
        let full = try await offline.update(feed)
        #expect(full == .installed(serial: 5, viaDelta: false, downloaded: Int64(try MappedFile(path: lists[4]).count)),
                "no delta from v1 with --keep 2: the full index")
        #expect(DeviceState(offline.device.simulator) == expected[4])
        #expect(online.device.maxInFlight == 1 && offline.device.maxInFlight == 1)
    }

    @Test("a delta whose bytes are not the manifest's, or a feed signed by another key: refused before install, index, store and state untouched")
    func refusedUpdatesLeaveThePhoneAlone() async throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let feed = scratch.file("feed")
        let key = FeedPrivateKey()
        let clock = Clock()
        let lists = try Array(Self.lists(scratch).prefix(2))
        func publish(_ version: Int, with key: FeedPrivateKey, into feed: String = feed) throws {
            try Self.publish(lists[version - 1], version: version, feed: feed, key: key, clock: clock, scratch: scratch)
        }
        let phone = try Phone(scratch: scratch, name: "phone", key: key.publicKey, clock: clock)
        try publish(1, with: key)
        _ = try await phone.update(feed)
        let loaded = try #require(try phone.folder.read(phone.folder.indexPath, limit: 1 << 26))
        let state = try phone.folder.read(phone.updater.statePath)
        let store = DeviceState(phone.device.simulator)
        try publish(2, with: key)
        let manifest = try FeedManifest.parse(try #require(try phone.folder.read(feed + "/manifest.json")))
        let deltaPath = feed + "/" + manifest.deltas[0].path
        var bytes = try #require(try phone.folder.read(deltaPath, limit: 1 << 26))
        bytes[bytes.count / 2] ^= 0x40
        try phone.folder.writeAtomically(bytes, to: deltaPath)
        await #expect(throws: FeedError.self) { _ = try await phone.update(feed) }
        #expect(try phone.folder.read(phone.folder.indexPath, limit: 1 << 26) == loaded)
        #expect(try phone.folder.read(phone.updater.statePath) == state)
        #expect(DeviceState(phone.device.simulator) == store)
        #expect(!phone.folder.exists(phone.folder.path + "/download.feed") && !phone.folder.exists(phone.folder.path + "/incoming.calldir"))
        let stranger = scratch.file("stranger")
        try publish(2, with: FeedPrivateKey(), into: stranger)  // v2, signed by a key the phone does not trust
        let error = await #expect(throws: FeedError.self) { _ = try await phone.update(stranger) }
        #expect(error?.check == .untrustedKey || error?.check == .signature, "\(String(describing: error))")
        #expect(try phone.folder.read(phone.folder.indexPath, limit: 1 << 26) == loaded)
    }
}
