import CallDirDevice
import CallDirReader

/// The app's side of a feed, in one call: `update(transport:)` takes a phone from "list v1
/// loaded" to "list v2 loaded", incrementally when the feed offers a delta from v1. It checks
/// the manifest (signature, expiry, rollback), downloads the delta (or the full index) into
/// the App Group folder with its size and SHA-256 checked, has the coordinator patch and install
/// it (the result verified against the manifest before it replaces the index; v1 kept as the
/// previous index when the device holds it), records the feed state beside the index, and
/// reloads the extension until the device holds the new list (`ReloadCoordinator.loadAll`:
/// an update, only the changes, when v1 was loaded completely). Any failure before the install
/// leaves the index, the store and the state as they were (a failure of the install itself
/// leaves the state recording the new serial: the next call completes the install); a failed load is resumed by the
/// next call (or `loadAll`).
public struct FeedPhoneUpdater: Sendable {
    /// The follower that checks the feed.
    public let follower: FeedFollower
    /// The coordinator that installs and loads.
    public let coordinator: ReloadCoordinator

    /// An updater for the coordinator's folder.
    public init(follower: FeedFollower, coordinator: ReloadCoordinator) {
        self.follower = follower
        self.coordinator = coordinator
    }

    /// What an update did.
    public enum Result: Sendable, Equatable {
        /// The installed index is the feed's; the device holds it.
        case upToDate(serial: Int64)
        /// A new index installed (and by `update`, loaded); `viaDelta` when it was patched on the phone.
        case installed(serial: Int64, viaDelta: Bool, downloaded: Int64)
    }

    /// The App Group folder.
    public var folder: SharedFolder { coordinator.folder }
    /// The feed state beside the index (FEED-PROTOCOL.md).
    public var statePath: String { FeedState.path(forIndex: folder.indexPath) }
    var downloadPath: String { folder.path + "/download.feed" }

    /// The installed state, nil before the first update.
    public func readState() throws -> FeedState? {
        guard let bytes = try folder.read(statePath, limit: FeedJSON.maxBytes) else { return nil }
        return try FeedState.parse(bytes, name: statePath)
    }

    /// Checks the feed and, when it has a new index, downloads it (a delta when it can), installs and loads it; throws `FeedError` for a refused feed.
    public func update(transport: some FeedTransport) async throws -> Result {
        let result = try await install(transport: transport)
        if case .upToDate = result, try await coordinator.isLoadedCompletely() { return result }
        try await coordinator.loadAll()
        return result
    }

    /// `update`'s first step alone: checks the feed and, when it has a new index, downloads,
    /// installs and records it, without loading it (call `coordinator.loadAll()` next, or
    /// `ShardCoordinator.loadAll()` once for every extension, as `FeedShardUpdater` does).
    /// Throws `FeedError` for a refused feed; any failure leaves the index and the state as they
    /// were (but for a failed install itself: see the type's overview).
    public func install(transport: some FeedTransport) async throws -> Result {
        let state = try readState()
        let installed = folder.exists(folder.indexPath) ? try? CallDirIndex(path: folder.indexPath) : nil
        guard let check = try await follower.check(transport: transport, state: state, installed: installed) else {
            return .upToDate(serial: state?.serial ?? 0)
        }
        let manifest = check.manifest
        let expected = IndexInstaller.Expectation(checksum: UInt32(manifest.index.crc32, radix: 16),
                                                  byteCount: Int(manifest.index.size),
                                                  deviceEntries: manifest.index.deviceEntries)
        let verify: @Sendable (MappedFile) throws -> Void = { try FeedFollower.verify($0, against: manifest) }
        defer { try? folder.remove(downloadPath) }
        switch check.plan {
        case .upToDate:
            if state?.serial != manifest.serial || state?.root != follower.state(after: check).root { try record(check) }
            return .upToDate(serial: manifest.serial)
        case .full(let entry):
            return try await fetchAndInstall(entry.path, size: entry.size, sha256: entry.sha256, viaDelta: false,
                                             check: check, expected: expected, verify: verify, transport: transport)
        case .delta(let entry):
            return try await fetchAndInstall(entry.path, size: entry.size, sha256: entry.sha256, viaDelta: true,
                                             check: check, expected: expected, verify: verify, transport: transport)
        }
    }

    /// Downloads the full index or the delta the plan names into the shared folder, installs it
    /// (a delta patched onto the installed index) and records the manifest's serial.
    private func fetchAndInstall(_ path: String, size: Int64, sha256: String, viaDelta: Bool, check: FeedCheck,
                                 expected: IndexInstaller.Expectation, verify: @escaping @Sendable (MappedFile) throws -> Void,
                                 transport: some FeedTransport) async throws -> Result {
        let received = try await follower.download(path, size: size, sha256: sha256, transport: transport, to: downloadPath,
                                                   role: viaDelta ? "the downloaded delta" : "the downloaded index")
        // The state first (FEED-PROTOCOL.md, "Following", step 7): once the new index may be in
        // place, the older serial is never accepted again, whatever fails after.
        try record(check)
        do {
            if viaDelta {
                _ = try await coordinator.installDelta(downloadPath, expecting: expected, check: verify)
            } else {
                _ = try await coordinator.install(downloadPath, expecting: expected, check: verify)
            }
        } catch let error as CallDirError {
            throw FeedFollower.feedError(error, source: transport.location(path))
        }
        return .installed(serial: check.manifest.serial, viaDelta: viaDelta, downloaded: received)
    }

    private func record(_ check: FeedCheck) throws {
        do {
            try folder.writeAtomically(follower.state(after: check).rendered(), to: statePath)
        } catch let error as CallDirError {
            throw FeedError(.install, "cannot record the feed state: \(error)", path: statePath)
        }
    }
}
