import CallDirFeed
import CallDirReader
import CallDirWriter

/// `calldir update` (and each poll of `serve --follow`): brings the index at `indexPath` to
/// the feed's current one, with the follower an app uses (`FeedFollower` in CallDirFeed: the
/// manifest's checks, the checked download, the patch, the check against the manifest); what
/// is left here is a server's way to publish: the download and the patch result beside the
/// index, renamed over it once verified. The state is recorded before the rename (FEED-PROTOCOL.md,
/// "Following", step 7): once the new index may be in place, no older manifest is accepted,
/// whatever fails after; a state ahead of the index is completed by the next update. Any
/// failure leaves the installed index as it was.
package struct FeedUpdater: Sendable {
    package enum Result: Sendable, Equatable {
        case upToDate(serial: Int64)
        case installed(serial: Int64, viaDelta: Bool, downloaded: Int64)
    }

    package var indexPath: String
    package var trusted: [FeedPublicKey]
    /// `--feed-id`: the feed to follow; else the state file's, else the first manifest's.
    package var pinnedFeed: String?
    /// `--root-version`: the key rotation version `trusted` belongs to.
    package var trustedRootVersion: Int64 = 1
    /// Where the patch spills labels: the index's folder unless told (`--tmpdir`).
    package var temporaryFolder: String
    package var now: @Sendable () -> Int64 = { FeedText.now() }
    package var progress: (@Sendable (Int64, Int64) -> Void)?

    package init(indexPath: String, trusted: [FeedPublicKey]) {
        self.indexPath = indexPath
        self.trusted = trusted
        let slash = indexPath.lastIndex(of: "/")
        temporaryFolder = slash.map { $0 == indexPath.startIndex ? "/" : String(indexPath[..<$0]) } ?? "."
    }

    var follower: FeedFollower {
        var follower = FeedFollower(trusted: trusted, now: now, progress: progress)
        follower.pinnedFeed = pinnedFeed
        follower.trustedRootVersion = trustedRootVersion
        return follower
    }

    package var statePath: String { FeedState.path(forIndex: indexPath) }

    package func readState() throws -> FeedState? {
        guard let bytes = try FeedFiles.read(statePath, maxBytes: FeedJSON.maxBytes) else { return nil }
        return try FeedState.parse(bytes, name: statePath)
    }

    package func update(transport: some FeedTransport) async throws -> Result {
        try await update(transport: transport, ifNoneMatch: nil).result
    }

    /// With `ifNoneMatch`, the ETag of the manifest last seen: a server answering "not
    /// modified" costs one small request (`serve --follow`). Returns the manifest's ETag.
    package func update(transport: some FeedTransport, ifNoneMatch: String?) async throws -> (result: Result, etag: String?) {
        do {
            try AtomicFile.requireRegularOrAbsent(indexPath, role: "the feed's update")
            try AtomicFile.requireRegularOrAbsent(statePath, role: "the feed state")
        } catch let error as CallDirError {
            throw FeedError(.usage, error.message, path: error.path)
        }
        // Temporaries of an update that was killed (the download, the patch result).
        StaleTemporaries.sweep(folders: [temporaryFolder, AtomicFile.folder(of: indexPath)])
        let state = try readState()
        // The installed index, when there is a readable one: the base a delta applies to.
        let installed = Syscalls.exists(indexPath) ? try? CallDirIndex(path: indexPath, verify: false) : nil
        guard let check = try await follower.check(transport: transport, state: state, installed: installed,
                                                   ifNoneMatch: ifNoneMatch) else {
            // "Not modified" is no news of the feed: the manifest last verified must still be valid.
            if let state, let expires = state.expires, now() >= expires {
                throw FeedError(.expired, "the server answers 'not modified' and the manifest last verified (serial "
                                + "\(state.serial)) expired at \(FeedText.timestamp(expires)): the feed is frozen",
                                path: transport.location(FeedManifest.fileName))
            }
            return (.upToDate(serial: state?.serial ?? 0), ifNoneMatch)
        }
        return (try await install(check, seen: state, installed: installed, transport: transport), check.etag)
    }

    /// Downloads (or patches) the new index into a temporary of its own beside the index,
    /// then, holding the folder's lock, re-checks the manifest against the state as it is now
    /// (another updater, from another mirror, may have installed a later serial meanwhile) and
    /// records the state and renames the index.
    private func install(_ check: FeedCheck, seen: FeedState?, installed: CallDirIndex?,
                         transport: some FeedTransport) async throws -> Result {
        let manifest = check.manifest
        let follower = follower
        switch check.plan {
        case .upToDate:
            return try await FeedFiles.withFollowerLock(AtomicFile.folder(of: indexPath)) {
                let state = try recheck(check, seen: seen)
                // A new serial for the same index, or a format-1 state to pin the feed and its expiry in.
                if state?.serial != manifest.serial || state?.feed != manifest.feed || state?.expires != manifest.expires
                    || (state?.root ?? nil) != follower.state(after: check).root {
                    try record(check)
                }
                return .upToDate(serial: manifest.serial)
            }
        case .full(let entry):
            let staging = try FeedFiles.temporaryName(beside: indexPath, suffix: ".feed-new")
            defer { Self.remove(staging) }
            let received = try await follower.download(entry.path, size: entry.size, sha256: entry.sha256, transport: transport,
                                                       to: staging, role: "the index")
            try FeedFollower.verify(try MappedFile(path: staging), against: manifest)
            return try await commit(check, seen: seen, staging: staging,
                                    result: .installed(serial: manifest.serial, viaDelta: false, downloaded: received))
        case .delta(let entry):
            guard let installed else { throw FeedError(.base, "no installed index to apply a delta to", path: indexPath) }
            let staging = try FeedFiles.temporaryName(beside: indexPath, suffix: ".feed-new")
            defer { Self.remove(staging) }
            let deltaPath = try FeedFiles.temporaryName(beside: indexPath, suffix: ".feed-delta")
            defer { Self.remove(deltaPath) }
            let received = try await follower.download(entry.path, size: entry.size, sha256: entry.sha256, transport: transport,
                                                       to: deltaPath, role: "the downloaded delta")
            try follower.patch(installed: installed, deltaPath: deltaPath, output: staging, temporaryFolder: temporaryFolder,
                               source: transport.location(entry.path))
            try FeedFollower.verify(try MappedFile(path: staging), against: manifest)
            return try await commit(check, seen: seen, staging: staging,
                                    result: .installed(serial: manifest.serial, viaDelta: true, downloaded: received))
        }
    }

    /// Under the folder's lock: the re-check, the state, then the index (step 7).
    private func commit(_ check: FeedCheck, seen: FeedState?, staging: String, result: Result) async throws -> Result {
        try await FeedFiles.withFollowerLock(AtomicFile.folder(of: indexPath)) {
            _ = try recheck(check, seen: seen)
            try record(check)
            try FeedFiles.rename(staging, over: indexPath)
            return result
        }
    }

    /// The state file as it is now (under the lock); when another updater changed it since
    /// `seen`, the manifest's checks are run again against it: a serial it has passed is a
    /// rollback (refused), whichever mirror this manifest came from.
    private func recheck(_ check: FeedCheck, seen: FeedState?) throws -> FeedState? {
        let state = try readState()
        guard state != seen, var current = state else { return state }
        let reached = current.root?.version ?? 1
        if reached > check.root.version {
            throw FeedError(.rollback, "another update installed serial \(current.serial), signed by key rotation \(reached); this "
                            + "manifest (serial \(check.manifest.serial)) is signed by rotation \(check.root.version): the "
                            + "installed index is kept", path: indexPath)
        }
        if check.root.version > reached { current.serial = min(current.serial, check.root.serial - 1) }
        do {
            _ = try FeedPolicy.plan(check.manifest, state: current, installedSHA256: nil, now: now(), pinnedFeed: pinnedFeed)
        } catch var error as FeedError {
            error.message = "another update changed the installed state meanwhile: " + error.message
            throw error
        }
        return state
    }

    private static func remove(_ path: String) {
        _ = Syscalls.unlink(path)
        TemporaryFiles.unregister(path)
    }

    /// The new index is the manifest's (`FeedFollower.verify`).
    func verify(_ file: MappedFile, against manifest: FeedManifest) throws {
        try FeedFollower.verify(file, against: manifest)
    }

    func record(_ check: FeedCheck) throws {
        try FeedFiles.publish(follower.state(after: check).rendered(), to: statePath, role: "the feed state")
    }
}
