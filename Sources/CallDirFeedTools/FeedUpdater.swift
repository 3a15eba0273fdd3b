import CallDirFeed
import CallDirReader
import CallDirPatch

/// `calldir update` (and each poll of `serve --follow`): brings the index at `indexPath` to
/// the feed's current one, with the follower an app uses (`FeedFollower` in CallDirFeed: the
/// manifest's checks, the checked download, the patch, the check against the manifest); what
/// is left here is a server's way to publish: the download and the patch result beside the
/// index, renamed over it once verified, the serial recorded last. Any failure leaves the
/// installed index as it was.
package struct FeedUpdater: Sendable {
    package enum Result: Sendable, Equatable {
        case upToDate(serial: Int64)
        case installed(serial: Int64, viaDelta: Bool, downloaded: Int64)
    }

    package var indexPath: String
    package var trusted: [FeedPublicKey]
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

    var follower: FeedFollower { FeedFollower(trusted: trusted, now: now, progress: progress) }

    package var statePath: String { FeedState.path(forIndex: indexPath) }

    package func readState() throws -> FeedState? {
        guard let bytes = try FeedFiles.read(statePath, maxBytes: 1 << 16) else { return nil }
        return try FeedState.parse(bytes, name: statePath)
    }

    package func update(transport: some FeedTransport) async throws -> Result {
        try await update(transport: transport, ifNoneMatch: nil).result
    }

    /// With `ifNoneMatch`, the ETag of the manifest last seen: a server answering "not
    /// modified" costs one small request (`serve --follow`). Returns the manifest's ETag.
    package func update(transport: some FeedTransport, ifNoneMatch: String?) async throws -> (result: Result, etag: String?) {
        let state = try readState()
        // The installed index, when there is a readable one: the base a delta applies to.
        let installed = Syscalls.exists(indexPath) ? try? CallDirIndex(path: indexPath, verify: false) : nil
        guard let check = try await follower.check(transport: transport, state: state, installed: installed,
                                                   ifNoneMatch: ifNoneMatch) else {
            return (.upToDate(serial: state?.serial ?? 0), ifNoneMatch)
        }
        return (try await install(check, installed: installed, transport: transport), check.etag)
    }

    private func install(_ check: FeedCheck, installed: CallDirIndex?, transport: some FeedTransport) async throws -> Result {
        let state = try readState()
        let manifest = check.manifest
        let follower = follower
        let staging = indexPath + ".feed-new"
        defer { _ = Syscalls.unlink(staging) }
        switch check.plan {
        case .upToDate:
            if state?.serial != manifest.serial { try record(manifest) }
            return .upToDate(serial: manifest.serial)
        case .full(let entry):
            let received = try await follower.download(entry.path, size: entry.size, sha256: entry.sha256, transport: transport,
                                                       to: staging, role: "the index")
            try FeedFollower.verify(try MappedFile(path: staging), against: manifest)
            try FeedFiles.rename(staging, over: indexPath)
            try record(manifest)
            return .installed(serial: manifest.serial, viaDelta: false, downloaded: received)
        case .delta(let entry):
            guard let installed else { throw FeedError(.base, "no installed index to apply a delta to", path: indexPath) }
            let deltaPath = indexPath + ".feed-delta"
            defer { _ = Syscalls.unlink(deltaPath) }
            let received = try await follower.download(entry.path, size: entry.size, sha256: entry.sha256, transport: transport,
                                                       to: deltaPath, role: "the downloaded delta")
            try follower.patch(installed: installed, deltaPath: deltaPath, output: staging, temporaryFolder: temporaryFolder,
                               source: transport.location(entry.path))
            try FeedFollower.verify(try MappedFile(path: staging), against: manifest)
            try FeedFiles.rename(staging, over: indexPath)
            try record(manifest)
            return .installed(serial: manifest.serial, viaDelta: true, downloaded: received)
        }
    }

    /// The new index is the manifest's (`FeedFollower.verify`).
    func verify(_ file: MappedFile, against manifest: FeedManifest) throws {
        try FeedFollower.verify(file, against: manifest)
    }

    func record(_ manifest: FeedManifest) throws {
        try FeedFiles.publish(follower.state(after: manifest).rendered(), to: statePath, role: "the feed state")
    }
}
