import CallDirReader
import CallDirWriter

/// One list over several Call Directory extensions (`calldir shard`, docs/CALLKIT.md "Several
/// extensions"): one `ReloadCoordinator` per extension, each over its own folder in the App
/// Group (`SharedFolder.shard`) with its own index and load records, so that a failed request,
/// which wipes one extension's store, re-sends that shard alone and touches no other. The
/// user's layer (`personal.txt`, `contacts.vcf` in the App Group root) applies to every shard.
/// An extension the user switched off in Settings is skipped: no background time, no request.
///
/// Keep one per App Group, as for `ReloadCoordinator`.
public actor ShardCoordinator {
    /// The App Group root: the shards' folders are in its `shards/`, the user's layer beside.
    public nonisolated let root: SharedFolder
    /// The app's Call Directory extensions, in the order `loadAll` loads them by default.
    public nonisolated let extensions: [String]
    private let coordinators: [String: ReloadCoordinator]

    /// A coordinator for `extensions` (bundle identifiers). `platform` gives each its CallKit
    /// (`CallKitPlatform(extensionIdentifier:)` on a phone); `coordinator` builds each one's
    /// `ReloadCoordinator` over its folder (the default: `ReloadCoordinator`'s defaults and
    /// `personal`). Throws `.usage` for an identifier that is no bundle identifier or a repeat.
    public init(root: SharedFolder, extensions: [String], personal: PersonalSettings? = nil,
                platform: (String) -> any CallDirectoryPlatform,
                coordinator: ((SharedFolder, any CallDirectoryPlatform) -> ReloadCoordinator)? = nil) throws {
        guard Set(extensions).count == extensions.count, !extensions.isEmpty else {
            throw CallDirError(.usage, "a sharded install needs distinct extensions, got \(extensions)", path: root.path)
        }
        self.root = root
        self.extensions = extensions
        var made: [String: ReloadCoordinator] = [:]
        for id in extensions {
            let folder = try root.shard(id)
            made[id] = coordinator?(folder, platform(id)) ?? ReloadCoordinator(folder: folder, platform: platform(id), personal: personal)
        }
        coordinators = made
    }

    /// The coordinator of one extension (its installs, loads and records), e.g. for a feed
    /// that updates this shard; nil for an extension this app does not have.
    public nonisolated func coordinator(for extensionIdentifier: String) -> ReloadCoordinator? {
        coordinators[extensionIdentifier]
    }

    /// What `install` did for one shard.
    public struct Installed: Sendable, Equatable {
        /// The extension that loads the shard.
        public var extensionIdentifier: String
        /// False when its folder held this very index already: nothing to load for it.
        public var changed: Bool
        /// The installed index's checksum.
        public var checksum: UInt32
    }

    /// Installs the shards `manifest` (a `shards.json`, checked) names, each into its
    /// extension's folder through its own coordinator, verified against the manifest's size,
    /// checksum and entries. A shard whose folder holds that index already is left alone, so
    /// an update of one category installs, and then loads, one shard. Throws before installing
    /// anything when the manifest names an extension this app does not have; a shard that
    /// fails to install leaves the shards before it installed (each is complete on its own).
    /// An extension of the app the manifest does not name, holding a shard from before, gets
    /// an empty index: the next `loadAll` empties its store.
    @discardableResult
    public func install(manifest path: String) async throws -> [Installed] {
        let manifest = try ShardManifest(path: path)
        if let stranger = manifest.shards.first(where: { coordinators[$0.extensionIdentifier] == nil }) {
            throw CallDirError(.usage, "the shards name the extension \(stranger.extensionIdentifier), which this app does not have "
                               + "(it has \(extensions.joined(separator: ", "))): shard with the app's extension identifiers", path: path)
        }
        let from = AtomicPublish.folder(of: path)
        var done: [Installed] = []
        for shard in manifest.shards {
            let coordinator = coordinators[shard.extensionIdentifier]!
            try coordinator.folder.create()
            if Self.installedChecksum(coordinator.folder) == shard.checksum {
                done.append(Installed(extensionIdentifier: shard.extensionIdentifier, changed: false, checksum: shard.checksum))
                continue
            }
            let installed = try await coordinator.install(from + "/" + shard.file, expecting: .init(
                checksum: shard.checksum, byteCount: shard.bytes, deviceEntries: shard.deviceEntries))
            done.append(Installed(extensionIdentifier: shard.extensionIdentifier, changed: true, checksum: installed.checksum))
        }
        // Fewer shards than before: an extension the manifest no longer names gets an empty
        // index, so that `loadAll` empties its store rather than keep a shard that moved.
        let named = Set(manifest.shards.map(\.extensionIdentifier))
        for id in extensions where !named.contains(id) {
            let coordinator = coordinators[id]!
            guard coordinator.folder.exists(coordinator.folder.indexPath),
                  (try? CallDirIndex(path: coordinator.folder.indexPath))?.metadata.deviceEntries != 0 else { continue }
            let empty = coordinator.folder.path + "/empty.calldir"
            defer { try? coordinator.folder.remove(empty) }
            try IndexComposer().write(to: empty, temporaryFolder: coordinator.folder.path)
            let installed = try await coordinator.install(empty, expecting: .init(deviceEntries: 0))
            done.append(Installed(extensionIdentifier: id, changed: true, checksum: installed.checksum))
        }
        return done
    }

    private static func installedChecksum(_ folder: SharedFolder) -> UInt32? {
        folder.exists(folder.indexPath) ? (try? CallDirIndex(path: folder.indexPath))?.checksum : nil
    }

    /// How one extension's load ended.
    public enum Outcome: Sendable, Equatable {
        /// The device holds the shard ⊕ the user's layer.
        case loaded(LoadCheckpoint)
        /// Switched off in Settings (`getEnabledStatusForExtension`): not loaded, nothing spent.
        case disabled
        /// No shard installed in its folder yet: nothing to load.
        case notInstalled
        /// Its load stopped (see `ReloadError`); the next `loadAll` resumes or starts it over.
        case failed(ReloadError)
        /// Not tried: the task was cancelled before its turn.
        case notTried
    }

    /// Loads each extension in `order` (default: `extensions`), one after another, each with
    /// the no-loss protocol of `ReloadCoordinator.loadAll`; one that holds its shard ⊕ the
    /// layer already is not asked; a failure in one is reported and
    /// the next is loaded. After a cancellation (the background time ran out) the rest are
    /// `notTried`. Errors other than `ReloadError` (none from the library) pass through.
    public func loadAll(order: [String]? = nil) async throws -> [(extensionIdentifier: String, outcome: Outcome)] {
        var outcomes: [(extensionIdentifier: String, outcome: Outcome)] = []
        var cancelled = false
        for id in order ?? extensions {
            guard let coordinator = coordinators[id] else {
                throw CallDirError(.usage, "no extension \(id) in this app (it has \(extensions.joined(separator: ", ")))", path: root.path)
            }
            if cancelled || Task.isCancelled {
                cancelled = true
                outcomes.append((id, .notTried))
                continue
            }
            guard coordinator.folder.exists(coordinator.folder.indexPath) else {
                outcomes.append((id, .notInstalled))
                continue
            }
            // Loaded already (the usual case for a shard an update left alone): no request.
            if let done = try? await coordinator.loadedCheckpoint() {
                outcomes.append((id, .loaded(done)))
                continue
            }
            do {
                outcomes.append((id, .loaded(try await coordinator.loadAll())))
            } catch let error as ReloadError {
                outcomes.append((id, error.reason == .disabled ? .disabled : .failed(error)))
                cancelled = error.reason == .cancelled
            }
        }
        return outcomes
    }

    /// Publishes the contacts' numbers for every extension (`contacts.vcf` in the root);
    /// returns true when they changed: call `loadAll` next.
    @discardableResult
    public func publishContacts(_ numbers: [Int64]) async throws -> Bool {
        try await coordinators[extensions[0]]!.publishContacts(numbers)
    }
}
