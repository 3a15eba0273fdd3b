import CallDirFeed
import CallDirReader
import Dispatch
import Synchronization
import CallDirPatch
import CallDirWriter

/// `calldir publish`: adds NEW to a static feed folder. Content first (the index under its
/// SHA-256, a delta from each of the last `keep` published indexes), then the manifest and its
/// signature, each published atomically, so a reader never sees a manifest naming a missing
/// file; then files that no manifest of the grace period names are pruned.
package enum FeedPublisher {
    package struct Options: Sendable {
        package var keep = 7
        package var expiresAfter: Int64 = 7 * 86400
        package var grace: Int64 = 3600
        package var now: Int64 = FeedText.now()
        /// The feed id for a first publication (`--feed-id`); else 32 random hex digits. A
        /// feed keeps the id of its first manifest: another is refused.
        package var feedId: String?
        /// `--rotate-from`: the key the feed is signed with now; `key` becomes the feed's key
        /// through a rotation statement both sign (`FeedRoot`, FEED-PROTOCOL.md "Key rotation").
        package var rotateFrom: FeedPrivateKey?
        package var temporaryFolder = "/tmp"
        package init() {}
    }

    package struct Outcome: Sendable {
        package var manifest: FeedManifest
        package var newDeltas = 0
        /// Of the new deltas, those composed from the previous one and today's (not diffed).
        package var composedDeltas = 0
        package var pruned: [String] = []
    }

    package static let historyFolder = "history"
    /// The longest `--expires`: a manifest valid for longer would freeze followers for longer.
    package static let maxExpiresAfter: Int64 = FeedPolicy.maxValidity

    /// Publishes NEW holding the feed folder's lock: a second `publish` at the same time is
    /// refused (check `busy`) before it changes anything.
    package static func publish(index newPath: String, feed: String, key: FeedPrivateKey, options: Options) throws -> Outcome {
        try check(options)
        // Header, sections and trailer here; every checksum on a worker beside the diff.
        let new = try CallDirIndex(path: newPath)
        try FeedFiles.makeFolder(feed)
        return try FeedFiles.withFolderLock(feed) {
            try publishLocked(new, feed: feed, key: key, options: options)
        }
    }

    /// Refuses options out of range (check `usage`) before anything is read or written.
    static func check(_ options: Options) throws {
        guard options.keep >= 0 else { throw FeedError(.usage, "--keep must be 0 or more") }
        guard (1...maxExpiresAfter).contains(options.expiresAfter) else {
            throw FeedError(.usage, "--expires must be between 1s and \(maxExpiresAfter / 86400)d")
        }
        if let id = options.feedId, !FeedManifest.isValidFeedId(id) {
            throw FeedError(.usage, "--feed-id must be 1 to 64 letters, digits, '.', '_' or '-'")
        }
    }

    private static func publishLocked(_ new: CallDirIndex, feed: String, key: FeedPrivateKey, options: Options) throws -> Outcome {
        try refuseLinkedFolders(feed)
        let sha = FeedFiles.sha256(new.file)
        for folder in [feed + "/index", feed + "/delta", feed + "/" + historyFolder] { try FeedFiles.makeFolder(folder) }

        // The previous manifest, checked with our own key: a tampered folder is not extended.
        var previous: FeedManifest?
        let previousBytes = try FeedFiles.read(feed + "/" + FeedManifest.fileName, maxBytes: FeedJSON.maxBytes)
        if let bytes = previousBytes {
            let signature = try FeedFiles.read(feed + "/" + FeedManifest.signatureFileName, maxBytes: 4096) ?? []
            previous = try FeedSignature.verify(manifest: bytes, signature: signature, trusted: [(options.rotateFrom ?? key).publicKey],
                                                manifestName: feed + "/" + FeedManifest.fileName,
                                                signatureName: feed + "/" + FeedManifest.signatureFileName)
        }
        let serial = try nextSerial(previous: previous, feed: feed)
        let feedId = try feedIdentity(previous: previous, options: options)
        // The feed's key rotation is the one its manifest names; a statement past it is what a
        // failed `--rotate-from` left (no manifest names it, so no follower walked it): removed.
        var rootVersion = previous?.root ?? history(feed).first?.root ?? 1
        if previous != nil { removeStatements(feed, after: rootVersion) }
        if let old = options.rotateFrom {
            rootVersion = try rotate(feed: feed, from: old, to: key, current: rootVersion, feedId: feedId, serial: serial)
        }
        do {
            return try publishContent(new, sha: sha, feed: feed, key: key, options: options, previous: previous,
                                      previousBytes: previousBytes, serial: serial, feedId: feedId, rootVersion: rootVersion)
        } catch {
            // Nothing names the statement until the manifest is in place: a failed rotation is undone.
            if options.rotateFrom != nil, (try? currentManifestRoot(feed)) != rootVersion { removeStatements(feed, after: rootVersion - 1) }
            throw error
        }
    }

    /// The feed's folders are its own: publish writes and prunes inside them only, so a folder
    /// that is a symbolic link (to a folder elsewhere) is refused before anything is written.
    static func refuseLinkedFolders(_ feed: String) throws {
        for name in ["index", "delta", historyFolder, FeedRoot.folder] where Syscalls.isSymbolicLink(feed + "/" + name) {
            throw FeedError(.usage, "\(name)/ is a symbolic link: publish writes and prunes only inside the feed folder; "
                            + "nothing was changed (make it a folder)", path: feed + "/" + name)
        }
    }

    /// Steps 1 to 4 of a publication, once the serial, feed id and key rotation are settled.
    private static func publishContent(_ new: CallDirIndex, sha: String, feed: String, key: FeedPrivateKey, options: Options,
                                       previous: FeedManifest?, previousBytes: [UInt8]?, serial: Int64, feedId: String,
                                       rootVersion: Int64) throws -> Outcome {
        // 1. The index, by its SHA-256: verified in full and copied on a worker thread while this
        // one diffs (each writes its own files); the composed deltas wait for both.
        let indexPath = "index/\(sha).calldir"
        let stored = IndexStore(new, to: feed + "/" + indexPath)
        let entry = FeedManifest.IndexEntry(path: indexPath, size: Int64(new.file.bytes.count), sha256: sha,
                                            crc32: FeedFiles.crcText(new.checksum), deviceEntries: new.metadata.deviceEntries)
        var outcome = Outcome(manifest: FeedManifest(feed: feedId, serial: serial, created: options.now, expires: options.now + options.expiresAfter,
                                                     keyId: key.publicKey.keyId, index: entry, deltas: []))
        outcome.manifest.root = rootVersion

        // 2. A delta from each of the last `keep` published indexes still in the folder.
        let bases = Array(deltaBases(previous: previous, sha: sha, feed: feed).prefix(options.keep))
        try makeDeltas(from: bases, to: new, stored: stored, sha: sha, feed: feed, options: options, previous: previous, into: &outcome)

        // 3. The manifest (kept in history/ for pruning), then its signature.
        try publishManifest(outcome.manifest, replacing: previousBytes, feed: feed, key: key, options: options)

        // 4. Prune what no manifest of the grace period (nor this one, nor the previous one) names.
        outcome.pruned = try prune(feed: feed, now: options.now, grace: options.grace,
                                   keeping: [outcome.manifest] + (previous.map { [$0] } ?? []))
        return outcome
    }

    /// The indexes a delta may start from, newest first: the previous manifest's index and the
    /// bases of its deltas, each once, not NEW itself, and still in the folder.
    static func deltaBases(previous: FeedManifest?, sha: String, feed: String) -> [String] {
        guard let previous else { return [] }
        var bases: [String] = []
        for candidate in [previous.index.sha256] + previous.deltas.map(\.from)
        where candidate != sha && !bases.contains(candidate) && Syscalls.exists(feed + "/index/\(candidate).calldir") {
            bases.append(candidate)
        }
        return bases
    }

    /// The deltas from `wanted` to NEW, into the outcome's manifest in `wanted`'s order: those
    /// the previous manifest already lists are kept; yesterday's index (when a base) is diffed;
    /// every older base's delta is composed from the one to yesterday this folder already holds
    /// and that diff (DeltaComposer), which reads a few changed numbers instead of every number
    /// of both indexes again. A base without a usable delta to yesterday is diffed. Each stage
    /// runs on every core. Waits for `stored` (NEW verified and copied) before composing.
    private static func makeDeltas(from wanted: [String], to new: CallDirIndex, stored: IndexStore, sha: String, feed: String,
                                   options: Options, previous: FeedManifest?, into outcome: inout Outcome) throws {
        let reused = wanted.map { base in previous?.deltas.first { $0.from == base && $0.to == sha } }
        let todo = wanted.indices.filter { reused[$0] == nil }
        let chain = previous.flatMap { previous in
            wanted.contains(previous.index.sha256) ? composable(previous, feed: feed) : nil
        } ?? [:]
        let made = Mutex<[Int: Swift.Result<FeedManifest.DeltaEntry, any Error>]>([:])
        let diffed = todo.filter { chain[wanted[$0]] == nil }
        DispatchQueue.concurrentPerform(iterations: diffed.count) { k in
            let i = diffed[k]
            let result = Swift.Result { try makeDelta(from: wanted[i], to: new, sha: sha, feed: feed, options: options) }
            made.withLock { $0[i] = result }
        }
        let verified: CallDirIndex
        do { verified = try stored.finish() } catch {
            // A damaged NEW: what was diffed from it goes (no manifest names it), nothing is published.
            for case .success(let delta) in made.withLock({ $0.values }) { _ = Syscalls.unlink(feed + "/" + delta.path) }
            throw error
        }
        let composed = todo.filter { chain[wanted[$0]] != nil }
        if !composed.isEmpty, let previous, let i = wanted.firstIndex(of: previous.index.sha256) {
            let latest = try (reused[i] ?? made.withLock { $0[i]! }.get())
            let second = try MappedFile(path: feed + "/" + latest.path)
            DispatchQueue.concurrentPerform(iterations: composed.count) { k in
                let i = composed[k]
                let result = Swift.Result {
                    try makeDelta(from: wanted[i], to: verified, sha: sha, feed: feed, options: options, via: (chain[wanted[i]]!, second))
                }
                made.withLock { $0[i] = result }
            }
        }
        let results = made.withLock { $0 }
        for i in wanted.indices {
            if let entry = reused[i] { outcome.manifest.deltas.append(entry); continue }
            outcome.manifest.deltas.append(try results[i]!.get())
            outcome.newDeltas += 1
        }
        outcome.composedDeltas = composed.count
    }

    /// Publishes `manifest` (its history copy first), then its signature. While a previous
    /// manifest is replaced, the signature file is valid for both for the moment between the
    /// two renames.
    private static func publishManifest(_ manifest: FeedManifest, replacing previousBytes: [UInt8]?, feed: String,
                                        key: FeedPrivateKey, options: Options) throws {
        let bytes = manifest.rendered()
        try FeedFiles.publish(bytes, to: feed + "/\(historyFolder)/\(manifest.serial).json", role: "the manifest's history copy")
        try publishSigned(bytes, replacing: previousBytes, to: feed + "/" + FeedManifest.fileName,
                          signature: feed + "/" + FeedManifest.signatureFileName, key: key, options: options, role: "the manifest")
    }

    /// Publishes `bytes` at `path` and its signature by `key` at `signature`; while `previous`
    /// is replaced, the signature file holds lines over both (by the keys that signed it), so
    /// that a reader fetching the two files across the renames verifies either.
    static func publishSigned(_ bytes: [UInt8], replacing previous: [UInt8]?, to path: String, signature: String,
                              key: FeedPrivateKey, options: Options, role: String) throws {
        if let previous {
            let signers = [key] + (options.rotateFrom.map { [$0] } ?? [])
            try FeedFiles.publish(try FeedSignature.render(manifest: previous, keys: signers) + FeedSignature.render(manifest: bytes, keys: [key]),
                                  to: signature, role: role + "'s signature")
        }
        try FeedFiles.publish(bytes, to: path, role: role)
        try FeedFiles.publish(try FeedSignature.render(manifest: bytes, keys: [key]), to: signature, role: role + "'s signature")
    }

    /// The previous manifest's serial + 1, or past history/'s when the manifest was removed by
    /// hand; refused (not trapped) when that would overflow (a planted history/ file).
    static func nextSerial(previous: FeedManifest?, feed: String) throws -> Int64 {
        let last = previous?.serial ?? history(feed).map(\.serial).max() ?? 0
        let (next, overflow) = last.addingReportingOverflow(1)
        guard !overflow else {
            throw FeedError(.manifest, "the last serial is \(last): no next serial (a file planted in \(historyFolder)/?)", path: feed)
        }
        return next
    }

    /// The feed id: the previous manifest's, else `--feed-id`, else a new random one.
    static func feedIdentity(previous: FeedManifest?, options: Options) throws -> String {
        if let id = previous?.feed {
            guard options.feedId == nil || options.feedId == id else {
                throw FeedError(.usage, "this feed's id is \"\(id)\" (chosen at its first publication); --feed-id cannot change it")
            }
            return id
        }
        if let id = options.feedId { return id }
        var random = SystemRandomNumberGenerator()
        return FeedText.hex((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    /// The delta from the published index `base` to NEW, under its own SHA-256: diffed, or
    /// composed `via` the delta from `base` to the previous index and the one from it to NEW.
    static func makeDelta(from base: String, to new: CallDirIndex, sha: String, feed: String, options: Options,
                          via: (first: MappedFile, second: MappedFile)? = nil) throws -> FeedManifest.DeltaEntry {
        // Not verified up front: the diff checks each block's CRC as it reads it.
        let old = try CallDirIndex(path: feed + "/index/\(base).calldir", verify: false)
        let pending = feed + "/delta/pending-\(base.prefix(16)).calldelta"
        if let via {
            _ = try DeltaComposer.compose(base: old, first: try DeltaFile(file: via.first), second: try DeltaFile(file: via.second), new: new,
                                          output: pending, temporaryFolder: options.temporaryFolder)
        } else {
            _ = try Differ.diff(old: old, new: new, output: pending, temporaryFolder: options.temporaryFolder)
        }
        let made = try MappedFile(path: pending)
        let deltaSHA = FeedFiles.sha256(made)
        let deltaPath = "delta/\(deltaSHA).calldelta"
        try FeedFiles.rename(pending, over: feed + "/" + deltaPath)
        return FeedManifest.DeltaEntry(from: base, to: sha, path: deltaPath, size: Int64(made.bytes.count), sha256: deltaSHA)
    }

    /// The previous manifest's deltas to its own index, by base, that are in the folder with the
    /// size and SHA-256 it signed (anything else is diffed instead).
    static func composable(_ previous: FeedManifest, feed: String) -> [String: MappedFile] {
        var found: [String: MappedFile] = [:]
        for entry in previous.deltas where entry.to == previous.index.sha256 && found[entry.from] == nil {
            guard let file = try? MappedFile(path: feed + "/" + entry.path), Int64(file.bytes.count) == entry.size,
                  FeedFiles.sha256(file) == entry.sha256 else { continue }
            found[entry.from] = file
        }
        return found
    }

    /// The manifests of history/, newest first.
    static func history(_ feed: String) -> [FeedManifest] {
        let folder = feed + "/" + historyFolder
        return Syscalls.folderEntries(folder).compactMap { name -> FeedManifest? in
            guard name.hasSuffix(".json"), let bytes = try? FeedFiles.read(folder + "/" + name, maxBytes: FeedJSON.maxBytes) else { return nil }
            return try? FeedManifest.parse(bytes, name: name)
        }.sorted { $0.serial > $1.serial }
    }

    static func prune(feed: String, now: Int64, grace: Int64, keeping: [FeedManifest]) throws -> [String] {
        let all = history(feed)
        // The manifests written and replaced now always; older ones while in the grace period.
        let kept = keeping + all.filter { m in m.created >= now - grace && !keeping.contains { $0.serial == m.serial } }
        var named = Set<String>()
        for m in kept {
            named.insert(m.index.path)
            for d in m.deltas { named.insert(d.path); named.insert("index/\(d.from).calldir") }
        }
        var removed: [String] = []
        for (folder, suffix) in [("index", ".calldir"), ("delta", ".calldelta")] {
            for name in Syscalls.folderEntries(feed + "/" + folder) where !named.contains(folder + "/" + name) {
                // Only the feed's own names (<sha256>.calldir, <sha256>.calldelta): anything else is left alone.
                guard name.hasSuffix(suffix), FeedText.bytes(hex: String(name.dropLast(suffix.count)), count: 32) != nil else { continue }
                _ = Syscalls.unlink(feed + "/" + folder + "/" + name)
                removed.append(folder + "/" + name)
            }
        }
        for m in all where !kept.contains(m) {
            _ = Syscalls.unlink(feed + "/\(historyFolder)/\(m.serial).json")
            removed.append("\(historyFolder)/\(m.serial).json")
        }
        return removed.sorted()
    }
}

/// NEW's full verification, then its copy into the feed (unless there already), on a worker
/// thread (inline when the system refuses one). `finish` waits and returns the verified index.
private final class IndexStore: @unchecked Sendable {  // `result` is the worker's alone until `join`
    private var result: Swift.Result<CallDirIndex, any Error>?
    private var worker: WorkerThread?

    init(_ new: CallDirIndex, to path: String) {
        let run = { [unowned self] in result = Swift.Result { try Self.store(new, to: path) } }
        worker = WorkerThread(run)
        if worker == nil { run() }
    }

    /// Joins the worker; so does deinit after a failure elsewhere (nothing outlives `publish`).
    deinit { worker?.join() }

    func finish() throws -> CallDirIndex {
        worker?.join()
        worker = nil
        return try result!.get()  // set before the worker returns
    }

    private static func store(_ new: CallDirIndex, to path: String) throws -> CallDirIndex {
        let verified = try CallDirIndex(file: new.file, verify: true)
        if !Syscalls.exists(path) {
            let out = try AtomicFile(destination: path, role: "the feed's index")
            do { try out.append(new.file.bytes); try out.publish() } catch { out.discard(); throw error }
        }
        return verified
    }
}
