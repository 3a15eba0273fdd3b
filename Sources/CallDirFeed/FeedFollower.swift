import CallDirPatch
import CallDirWriter
import CallDirReader

/// The follower's portable core, what a phone app and `calldir update` share: the manifest's
/// checks (`FeedCheck`: signature, expiry, rollback, delta-or-full), the download written
/// atomically into a file the caller names while its size and SHA-256 are checked, the check of
/// a new index against the manifest, the patch of a delta onto the installed index, and the
/// feed state to record. No folder is assumed (no /tmp): the caller names every path (on a
/// phone, files in the App Group container; `FeedPhoneUpdater` does that with the installer).
public struct FeedFollower: Sendable {
    /// The keys whose signatures are accepted (before any rotation).
    public var trusted: [FeedPublicKey]
    /// The feed id to follow (`--feed-id`); else the one the state file pinned, else the first seen.
    public var pinnedFeed: String?
    /// The key rotation version `trusted` belongs to (`--root-version`; 1: the feed's first keys).
    public var trustedRootVersion: Int64 = 1
    /// The clock expiry is checked against (seconds since 1970).
    public var now: @Sendable () -> Int64
    /// Bytes received and announced, during a download.
    public var progress: (@Sendable (Int64, Int64) -> Void)?

    /// A follower trusting `trusted`; `progress` sees each download's (received, expected).
    public init(trusted: [FeedPublicKey], now: @escaping @Sendable () -> Int64 = { FeedText.now() },
                progress: (@Sendable (Int64, Int64) -> Void)? = nil) {
        self.trusted = trusted
        self.now = now
        self.progress = progress
    }

    /// Fetches and verifies the manifest against the installed state; nil when the server
    /// answered "not modified" to `ifNoneMatch`.
    public func check(transport: some FeedTransport, state: FeedState?, installed: CallDirIndex?,
                      ifNoneMatch: String? = nil) async throws -> FeedCheck? {
        try await FeedCheck.run(transport: transport, trusted: trusted, trustedVersion: trustedRootVersion, state: state,
                                installedSHA256: { installed.map { Self.sha256($0.file) } },
                                now: now(), pinnedFeed: pinnedFeed, ifNoneMatch: ifNoneMatch)
    }

    /// Downloads the feed's file `path` (announced `size` and `sha256`) into `destination`,
    /// published atomically only once complete and matching; returns the bytes received.
    @discardableResult
    public func download(_ path: String, size: Int64, sha256: String, transport: some FeedTransport,
                         to destination: String, role: String) async throws -> Int64 {
        let out = try AtomicFile(destination: destination, role: role)
        do {
            let sink = FeedDownloadSink(path: transport.location(path), size: size, sha256: sha256, progress: progress) {
                try out.append($0)
            }
            try await transport.download(path, maxBytes: Int(size), into: sink)
            try sink.finish()
            try out.publish()
            return sink.received
        } catch {
            out.discard()
            throw error
        }
    }

    /// Patches `installed` with the delta at `deltaPath` into `output` (published atomically),
    /// after checking the delta is for this base; patch errors become feed errors naming `source`.
    public func patch(installed: CallDirIndex, deltaPath: String, output: String, temporaryFolder: String,
                      source: String) throws {
        do {
            let delta: DeltaFile
            do { delta = try DeltaFile(path: deltaPath, verify: true) } catch let error as CallDirError where error.code != .io {
                // Its SHA-256 was the manifest's: a damaged delta was published (a feed fault, not a local one).
                throw FeedError(.digest, "the delta is damaged: \(error.message)", path: source)
            }
            guard delta.oldChecksum == installed.checksum, delta.oldSize == installed.file.bytes.count else {
                throw FeedError(.base, "the delta applies to the index with CRC-32 \(hex(delta.oldChecksum)) "
                                + "(\(delta.oldSize) bytes), not the installed one (\(hex(installed.checksum)), "
                                + "\(installed.file.bytes.count) bytes)", path: source)
            }
            _ = try Patcher.patch(old: installed, delta: delta, output: output, temporaryFolder: temporaryFolder)
        } catch let error as CallDirError {
            throw Self.feedError(error, source: source)
        }
    }

    /// A library error met while installing, as the feed check it fails.
    public static func feedError(_ error: CallDirError, source: String) -> FeedError {
        FeedError(error.code == .deltaMismatch ? .base : .install, error.description, path: source)
    }

    /// The new index is the manifest's: size, SHA-256, then a full verification (every
    /// section's CRC) and the CRC-32 and device entries the manifest announces.
    public static func verify(_ file: MappedFile, against manifest: FeedManifest) throws {
        let expected = manifest.index
        guard Int64(file.bytes.count) == expected.size else {
            throw FeedError(.size, "the new index has \(file.bytes.count) bytes, the manifest announces \(expected.size)", path: file.path)
        }
        let sha = sha256(file)
        guard sha == expected.sha256 else {
            throw FeedError(.digest, "the new index's SHA-256 \(sha) differs from the manifest's \(expected.sha256)", path: file.path)
        }
        let index: CallDirIndex
        do { index = try CallDirIndex(file: file, verify: true) } catch {
            throw FeedError(.digest, "the new index does not verify: \(error)", path: file.path)
        }
        guard hex(index.checksum) == expected.crc32, index.metadata.deviceEntries == expected.deviceEntries else {
            throw FeedError(.digest, "the new index has CRC-32 \(hex(index.checksum)) and "
                            + "\(index.metadata.deviceEntries) device entries; the manifest announces \(expected.crc32) "
                            + "and \(expected.deviceEntries)", path: file.path)
        }
    }

    /// What to record beside the index once the manifest's index is installed.
    public func state(after check: FeedCheck) -> FeedState {
        let manifest = check.manifest
        var state = FeedState(feed: manifest.feed, expires: manifest.expires, serial: manifest.serial, sha256: manifest.index.sha256,
                              keyId: manifest.keyId, manifestCreated: manifest.created, installed: now())
        state.root = check.root.version > 1 ? check.root : nil
        return state
    }

    /// SHA-256 of a whole mapped file, dropping each chunk's pages once hashed (RSS stays small).
    public static func sha256(_ file: MappedFile) -> String {
        var digest = FeedDigest()
        let chunk = 4 << 20
        var at = 0
        while at < file.bytes.count {
            let end = min(at + chunk, file.bytes.count)
            digest.update(UnsafeRawBufferPointer(rebasing: file.bytes[at..<end]))
            file.release(at..<end)
            at = end
        }
        return digest.hex()
    }
}
