@testable import CallDirDevice
import CallDirReader
import CallDirSimulator
import CallDirWriter
import Foundation
import Testing
import TestSupport

/// One list over several extensions on the app's real path: `ShardCoordinator` installing the
/// shards `ShardWriter` cut, one `ReloadCoordinator` and one simulated extension (its own
/// `CallKitSimulator` store, its own enabled switch) per shard, the extension's request reading
/// its shard's folder and the user's layer from the App Group root. The simulator is the judge.
@Suite("Several extensions: ShardCoordinator")
struct ShardCoordinatorTests {
    /// An App Group with one simulated extension per shard of a list.
    final class Rig: @unchecked Sendable {  // one test at a time
        let scratch = TempFolder()
        let root: SharedFolder
        let clock = TestClock()
        let requestSize: Int
        var manifest: ShardManifest
        var manifestPath: String
        let phones: [String: SimulatedPhone]

        init(block: [String], identify: [String], rule: ShardManifest.Rule, maxEntries: Int64, requestSize: Int) throws {
            self.requestSize = requestSize
            root = SharedFolder(path: scratch.file("group"))
            try root.create()
            (manifest, manifestPath) = try Self.shard(scratch, "v1", block: block, identify: identify, rule: rule, maxEntries: maxEntries)
            var phones: [String: SimulatedPhone] = [:]
            for shard in manifest.shards {
                let phone = SimulatedPhone(folder: try root.shard(shard.extensionIdentifier), requestSize: requestSize)
                phone.personal = clock.settings
                phones[shard.extensionIdentifier] = phone
            }
            self.phones = phones
        }

        /// The list built and cut into `scratch/name/`: its manifest and the manifest's path.
        static func shard(_ scratch: TempFolder, _ name: String, block: [String], identify: [String], rule: ShardManifest.Rule,
                          maxEntries: Int64) throws -> (ShardManifest, String) {
            let index = try buildIndex(scratch, name + ".calldir", block: block, identify: identify)
            let folder = scratch.file(name)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let manifest = try ShardWriter.write(index, rule: rule, maxEntries: maxEntries, extensionPrefix: "com.example.Blocker",
                                                 folder: folder, temporaryFolder: scratch.path)
            return (manifest, folder + "/shards.json")
        }

        var extensions: [String] { manifest.shards.map(\.extensionIdentifier) }

        func coordinator(extensions more: [String] = []) throws -> ShardCoordinator {
            try ShardCoordinator(root: root, extensions: extensions + more, personal: clock.settings,
                                 platform: { [phones] id in phones[id] ?? SimulatedPhone(folder: SharedFolder(path: "/nonexistent"), requestSize: 1) },
                                 coordinator: { folder, platform in
                                     ReloadCoordinator(folder: folder, platform: platform, maxConsecutiveFailures: 4, personal: self.clock.settings)
                                 })
        }

        /// What the extension of `shard` must hold: the shard's store ⊕ the user's layer.
        func expected(_ shard: ShardManifest.Shard, layer: PersonalLayer, contacts: [Int64]) throws -> DeviceState {
            let plain = CallKitSimulator()
            try loadFully(DeviceLoader(index: try CallDirIndex(path: AtomicPublish.folder(of: manifestPath) + "/" + shard.file)), into: plain)
            return expectedStore(list: DeviceState(plain), layer: layer, contacts: contacts, now: clock.now)
        }

        func remove() { scratch.remove() }
    }

    /// Random lists split by size or kind; one extension draws the coordinator's faults (refusals,
    /// kills, host failures, expiries, late confirmations, error 7), and, while the others load,
    /// requests the system runs in it on its own that fail, are killed or succeed; some are
    /// switched off, and the user's layer is edited before the launch. Launch after launch until
    /// every enabled extension is loaded, then one launch more without faults (the system may
    /// have wiped the faulty one after its turn): each holds exactly its shard ⊕ the layer; each
    /// fault-free extension got each of its entries once and no failed request (a failure in one
    /// shard cost the others nothing); a switched-off one got no request at all.
    @Test(arguments: 0..<16)
    func faultsInOneShardCostTheOthersNothing(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: 0x5A4D &+ seed &* 104_729)
        let list = PersonalGenerator.randomList(&rng)
        let rule: ShardManifest.Rule = seed % 3 == 0 ? .kind : .size
        let rig = try Rig(block: list.block, identify: list.identify, rule: rule, maxEntries: Int64.random(in: 15...60, using: &rng),
                          requestSize: Int.random(in: 3...12, using: &rng))
        defer { rig.remove() }
        var layer = PersonalLayer(), contacts: [Int64] = [], now = rig.clock.now
        for _ in 0..<Int.random(in: 0...4, using: &rng) { PersonalGenerator.edit(&layer, &contacts, &now, &rng) }
        rig.clock.now = now
        try rig.root.writePersonalLayer(layer)
        try rig.root.writeContacts(contacts)

        let faulty = rig.extensions.randomElement(using: &rng)!
        rig.phones[faulty]!.fates = (0..<Int.random(in: 1...8, using: &rng)).map { _ in
            SimulatedPhone.randomFate(&rng, entries: rig.requestSize, late: true)
        }
        rig.phones[faulty]!.lateCompletionsLandAtNextCall = true
        let off = Set(rig.extensions.filter { $0 != faulty && Int.random(in: 0..<4, using: &rng) == 0 })
        for id in off { rig.phones[id]!.enabled = false }

        let coordinator = try rig.coordinator()
        try await coordinator.install(manifest: rig.manifestPath)
        // The system runs the faulty extension on its own while another extension loads.
        let system = SystemRuns(seed: seed, phone: rig.phones[faulty]!)
        for id in rig.extensions where id != faulty {
            await coordinator.coordinator(for: id)!.setStepHook { step in if step == .beforeReload { system.maybeRun() } }
        }
        var launches = 0
        while true {
            launches += 1
            let outcomes = try await coordinator.loadAll(order: rig.extensions.shuffled(using: &rng))
            for (id, outcome) in outcomes where off.contains(id) { #expect(outcome == .disabled, "seed \(seed): \(id)") }
            if outcomes.allSatisfy({ off.contains($0.extensionIdentifier) || $0.outcome.isLoaded }) { break }
            try #require(launches < 40, "seed \(seed): not loaded after 40 launches: \(outcomes)")
        }
        system.stopped = true
        let last = try await coordinator.loadAll()
        #expect(last.allSatisfy { off.contains($0.extensionIdentifier) || $0.outcome.isLoaded }, "seed \(seed): \(last)")
        for shard in rig.manifest.shards {
            let id = shard.extensionIdentifier, phone = rig.phones[id]!
            if off.contains(id) {
                #expect(phone.reloads == 0 && phone.simulator.history.isEmpty, "seed \(seed): \(id) is off but was asked")
                continue
            }
            let expected = try rig.expected(shard, layer: layer, contacts: contacts)
            #expect(DeviceState(phone.simulator) == expected, "seed \(seed): \(id) holds another store")
            if id != faulty {
                let sent = phone.simulator.history.reduce(0) { $0 + $1.adds + $1.removes }
                #expect(phone.simulator.history.allSatisfy(\.succeeded) && sent == expected.count,
                        "seed \(seed): \(id) sent \(sent) entries for \(expected.count), faults in \(faulty)")
            }
        }
    }

    /// Requests the system starts in one extension on its own, now and then, while the app
    /// loads another: they fail (the store wiped), are killed while feeding, expire, answer
    /// late, or succeed (`SimulatedPhone.randomSystemFate`).
    final class SystemRuns: @unchecked Sendable {  // called from one coordinator at a time
        var rng: SeededGenerator
        let phone: SimulatedPhone
        var stopped = false
        private(set) var runs = 0

        init(seed: UInt64, phone: SimulatedPhone) {
            rng = SeededGenerator(seed: 0x5157 &+ seed)
            self.phone = phone
        }

        func maybeRun() {
            guard !stopped, Int.random(in: 0..<3, using: &rng) == 0 else { return }
            runs += 1
            phone.runExtension(SimulatedPhone.randomSystemFate(&rng, entries: 5))
        }
    }

    /// An update of one category (`--by kind`, only the blocking list changed): one shard is
    /// installed again, one extension asked, with an update of only the changes; the other
    /// extension is neither installed into nor asked.
    @Test func anUpdateOfOneCategoryLoadsOneExtension() async throws {
        let identify = ["33162000100-33162000140,Survey", "33162000200,Known"]
        let rig = try Rig(block: ["33162000001-33162000030", "33162000050"], identify: identify, rule: .kind, maxEntries: 0, requestSize: 10)
        defer { rig.remove() }
        let coordinator = try rig.coordinator()
        #expect(try await coordinator.install(manifest: rig.manifestPath).allSatisfy { $0.changed })
        _ = try await coordinator.loadAll()
        let (blocker, identifier) = (rig.extensions[0], rig.extensions[1])
        let before = (rig.phones[blocker]!.simulator.history.count, rig.phones[identifier]!.simulator.history.count)
        let oldStore = DeviceState(rig.phones[blocker]!.simulator)

        (rig.manifest, rig.manifestPath) = try Rig.shard(rig.scratch, "v2", block: ["33162000001-33162000030", "33162000060"],
                                                         identify: identify, rule: .kind, maxEntries: 0)
        let installed = try await coordinator.install(manifest: rig.manifestPath)
        #expect(installed.map(\.changed) == [true, false])
        let outcomes = try await coordinator.loadAll()
        #expect(outcomes.allSatisfy { $0.outcome.isLoaded })
        #expect(rig.phones[identifier]!.simulator.history.count == before.1)
        let sent = rig.phones[blocker]!.simulator.history.dropFirst(before.0)
        #expect(sent.allSatisfy { $0.kind == .incremental } && sent.reduce(0) { $0 + $1.adds + $1.removes } == 2)
        #expect(DeviceState(rig.phones[blocker]!.simulator) == (try rig.expected(rig.manifest.shards[0], layer: PersonalLayer(), contacts: [])))
        #expect(DeviceState(rig.phones[blocker]!.simulator) != oldStore)
    }

    /// A list cut into fewer shards than before: the extension no manifest names any more
    /// is emptied, the others hold their new shards.
    @Test func fewerShardsEmptyTheExtensionLeftOver() async throws {
        let block = (0..<60).map { String(33_162_000_000 + $0 * 3) }
        let rig = try Rig(block: block, identify: [], rule: .size, maxEntries: 20, requestSize: 50)
        defer { rig.remove() }
        #expect(rig.extensions.count == 3)
        let coordinator = try rig.coordinator()
        try await coordinator.install(manifest: rig.manifestPath)
        _ = try await coordinator.loadAll()
        #expect(rig.phones[rig.extensions[2]]!.simulator.entryCount == 20)

        (rig.manifest, rig.manifestPath) = try Rig.shard(rig.scratch, "v2", block: Array(block.prefix(30)), identify: [], rule: .size,
                                                         maxEntries: 20)
        #expect(rig.manifest.shards.count == 2)
        let installed = try await coordinator.install(manifest: rig.manifestPath)
        #expect(installed.last?.extensionIdentifier == "com.example.Blocker.3" && installed.last?.changed == true)
        let outcomes = try await coordinator.loadAll()
        #expect(outcomes.allSatisfy { $0.outcome.isLoaded })
        #expect(rig.phones["com.example.Blocker.3"]!.simulator.entryCount == 0)
        #expect(rig.phones[rig.extensions[0]]!.simulator.entryCount + rig.phones[rig.extensions[1]]!.simulator.entryCount == 30)
    }

    /// A manifest naming an extension the app lacks installs nothing; an app extension the
    /// list has no shard for is left alone (`notInstalled`), and an unknown one in `order` is
    /// a usage error.
    @Test func extensionsTheAppLacks() async throws {
        let rig = try Rig(block: ["33162000001"], identify: ["33162000002,Known"], rule: .kind, maxEntries: 0, requestSize: 10)
        defer { rig.remove() }
        let partial = try ShardCoordinator(root: rig.root, extensions: [rig.extensions[0]], personal: rig.clock.settings,
                                           platform: { [phones = rig.phones] in phones[$0]! })
        await #expect(throws: CallDirError.self) { try await partial.install(manifest: rig.manifestPath) }
        #expect(!rig.root.exists(try rig.root.shard(rig.extensions[0]).indexPath))

        let wider = try rig.coordinator(extensions: ["com.example.Blocker.spare"])
        try await wider.install(manifest: rig.manifestPath)
        let outcomes = try await wider.loadAll()
        #expect(outcomes.last!.outcome == .notInstalled && outcomes.dropLast().allSatisfy { $0.outcome.isLoaded })
        await #expect(throws: CallDirError.self) { try await wider.loadAll(order: ["com.example.Other"]) }
        #expect(throws: CallDirError.self) { try rig.root.shard("../escape") }
    }
}

extension ShardCoordinator.Outcome {
    var isLoaded: Bool {
        if case .loaded = self { return true }
        return false
    }
}
