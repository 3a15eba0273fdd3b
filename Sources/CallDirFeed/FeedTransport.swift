/// How a follower reaches a feed: a folder served over HTTP(S) (AsyncHTTPClient on Linux in
/// `CallDirFeedTools`, URLSession on Apple platforms in Examples/), or anything else that
/// fetches files by their path relative to the feed's root. Implementations map "not found"
/// to `.missing`, time-outs to `.timeout`, other failures to `.transport`, and must refuse
/// (`.size`) a body longer than `maxBytes` without reading it all.
public protocol FeedTransport: Sendable {
    /// A small file whole (manifest, signature). With `ifNoneMatch` (an ETag from a previous
    /// answer) a server may answer "not modified": then `nil`.
    func fetch(_ path: String, maxBytes: Int, ifNoneMatch: String?) async throws -> FeedFetched?
    /// A large file in pieces, handed to `sink` as they arrive, at most `maxBytes`.
    func download(_ path: String, maxBytes: Int, into sink: FeedDownloadSink) async throws
    /// Where `path` is, for messages (a URL, a file path).
    func location(_ path: String) -> String
}

extension FeedTransport {
    public func location(_ path: String) -> String { path }
}

/// A small file as a transport fetched it.
public struct FeedFetched: Sendable {
    /// The whole body.
    public var bytes: [UInt8]
    /// The server's ETag, for the next `ifNoneMatch`.
    public var etag: String?
    /// A fetched body and its ETag.
    public init(bytes: [UInt8], etag: String?) { self.bytes = bytes; self.etag = etag }
}

/// Receives a download's bytes: counts them against the announced size (refusing the first
/// byte past it), hashes them, and hands them to `write` (a file being written). `finish()`
/// checks the size and SHA-256 the manifest announced.
public final class FeedDownloadSink {
    /// The file being downloaded (its path in the feed), for messages.
    public let path: String
    /// The size the manifest announces.
    public let expectedSize: Int64
    /// The SHA-256 the manifest announces (lower-case hex).
    public let expectedSHA256: String
    /// Bytes received so far.
    public private(set) var received: Int64 = 0
    private var digest = FeedDigest()
    private let write: (UnsafeRawBufferPointer) throws -> Void
    private let progress: ((Int64, Int64) -> Void)?

    /// A sink for the file at `path` of `size` bytes and digest `sha256`; `write` takes each piece, `progress` sees (received, expected).
    public init(path: String, size: Int64, sha256: String, progress: ((Int64, Int64) -> Void)? = nil,
                write: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.path = path
        expectedSize = size
        expectedSHA256 = sha256
        self.write = write
        self.progress = progress
    }

    /// Takes the next piece; throws `.size` at the first byte past the announced size.
    public func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard received + Int64(bytes.count) <= expectedSize else {
            throw FeedError(.size, "the server sent more than the \(expectedSize) bytes the manifest announces; download aborted",
                            path: path)
        }
        received += Int64(bytes.count)
        digest.update(bytes)
        try write(bytes)
        progress?(received, expectedSize)
    }

    /// Checks that the whole file arrived with the announced SHA-256 (`.size`, `.digest`).
    public func finish() throws {
        guard received == expectedSize else {
            throw FeedError(.size, "received \(received) bytes, the manifest announces \(expectedSize)", path: path)
        }
        let got = digest.hex()
        guard got == expectedSHA256 else {
            throw FeedError(.digest, "SHA-256 \(got) differs from the manifest's \(expectedSHA256)", path: path)
        }
    }
}

/// The follower's first step, shared by every side: fetch the manifest and its signature,
/// verify them with the trusted keys, check expiry and rollback against the installed state,
/// and choose the download.
public struct FeedCheck: Sendable {
    /// The trusted keys after walking the feed's rotation statements (record it in the state).
    public var root: FeedRoot
    /// The manifest, verified.
    public var manifest: FeedManifest
    /// Its exact bytes (what the signature covers).
    public var manifestBytes: [UInt8]
    /// The ETag it came with.
    public var etag: String?
    /// What to download.
    public var plan: FeedPolicy.Plan

    /// `nil` when the server says the manifest is unchanged since `ifNoneMatch`.
    public static func run(transport: some FeedTransport, trusted: [FeedPublicKey], trustedVersion: Int64 = 1, state: FeedState?,
                           installedSHA256: String?, now: Int64, pinnedFeed: String? = nil,
                           ifNoneMatch: String? = nil) async throws -> FeedCheck? {
        try await run(transport: transport, trusted: trusted, trustedVersion: trustedVersion, state: state,
                      installedSHA256: { installedSHA256 }, now: now, pinnedFeed: pinnedFeed, ifNoneMatch: ifNoneMatch)
    }

    /// `installedSHA256` is asked for only when the manifest was fetched (hashing a large
    /// index is skipped when the server answers "not modified"). `trusted` are the keys of key
    /// rotation `trustedVersion` (1: the feed's first keys; N: those `root/N.json` names, as a
    /// follower installed after N-1 rotations is given them), where the walk starts unless the
    /// state file has reached a later version.
    public static func run(transport: some FeedTransport, trusted: [FeedPublicKey], trustedVersion: Int64 = 1, state: FeedState?,
                           installedSHA256: () -> String?, now: Int64, pinnedFeed: String? = nil,
                           ifNoneMatch: String? = nil) async throws -> FeedCheck? {
        guard !trusted.isEmpty else { throw FeedError(.usage, "no trusted key: pass --trusted-key ed25519:<hex>") }
        guard trustedVersion >= 1 else { throw FeedError(.usage, "the trusted keys' rotation version must be 1 or more") }
        if let pinnedFeed, let stateFeed = state?.feed, pinnedFeed != stateFeed {
            throw FeedError(.usage, "this index follows feed \"\(stateFeed)\" (pinned in its state file); --feed-id \"\(pinnedFeed)\" "
                            + "names another: nothing was fetched (to follow another feed, use another index, or remove "
                            + "the state file if you trust the installed index)")
        }
        guard let manifest = try await transport.fetch(FeedManifest.fileName, maxBytes: FeedJSON.maxBytes,
                                                       ifNoneMatch: ifNoneMatch) else { return nil }
        guard let signature = try await transport.fetch(FeedManifest.signatureFileName, maxBytes: 4096, ifNoneMatch: nil) else {
            throw FeedError(.transport, "the server answered 'not modified' to an unconditional request",
                            path: FeedManifest.signatureFileName)
        }
        // The manifest's `root` (read before verifying, only to know how far to walk) names the
        // rotation statements to walk; the manifest is then verified with the keys reached.
        let given = FeedRoot(version: trustedVersion, keys: trusted, serial: 0)
        let known = state?.root.flatMap { $0.version >= trustedVersion ? $0 : nil } ?? given
        let root = try await walk(from: known, to: FeedManifest.rootVersion(unverified: manifest.bytes), transport: transport,
                                  feed: pinnedFeed ?? state?.feed)
        var state = state
        if root.version > known.version, var adopted = state {
            // New keys sign from `root.serial` on: the floor below it, whatever an old key pushed.
            adopted.serial = min(adopted.serial, root.serial - 1)
            state = adopted
        }
        let parsed = try FeedSignature.verify(manifest: manifest.bytes, signature: signature.bytes, trusted: root.keys,
                                              manifestName: transport.location(FeedManifest.fileName),
                                              signatureName: transport.location(FeedManifest.signatureFileName))
        let plan = try FeedPolicy.plan(parsed, state: state, installedSHA256: installedSHA256(), now: now,
                                       pinnedFeed: pinnedFeed, source: transport.location(FeedManifest.fileName))
        return FeedCheck(root: root, manifest: parsed, manifestBytes: manifest.bytes, etag: manifest.etag, plan: plan)
    }

    /// Walks `root/<version>.json` from the version after `root` up to `target` (each must exist).
    static func walk(from root: FeedRoot, to target: Int64, transport: some FeedTransport, feed: String?) async throws -> FeedRoot {
        guard target - root.version <= FeedRoot.maxStepsPerCheck else {
            throw FeedError(.manifest, "the manifest names key rotation \(target), more than \(FeedRoot.maxStepsPerCheck) past "
                            + "the trusted one (\(root.version))", path: transport.location(FeedManifest.fileName))
        }
        var root = root
        while root.version < target {
            let path = FeedRoot.path(version: root.version + 1)
            guard let statement = try await transport.fetch(path, maxBytes: FeedJSON.maxBytes, ifNoneMatch: nil),
                  let signature = try await transport.fetch(path + ".sig", maxBytes: 4096, ifNoneMatch: nil) else {
                throw FeedError(.transport, "the server answered 'not modified' to an unconditional request", path: transport.location(path))
            }
            root = try root.next(statement: statement.bytes, signature: signature.bytes, feed: feed, name: transport.location(path))
        }
        return root
    }
}
