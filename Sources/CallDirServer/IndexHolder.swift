#if canImport(Glibc)
import Glibc
#endif
import CallDirLookup
import Logging
import Synchronization
import CallDirReader

/// One opened and fully verified index, as the daemon serves it: a private copy of the file in
/// anonymous memory (`MappedFile(copying:)`), so that nothing done to the file afterwards
/// (truncated, rewritten in place, removed) can change what is served or fault a lookup with
/// SIGBUS. Requests hold a reference for the few microseconds they need it; the copy goes
/// away with the last reference (`MappedFile` unmaps on deinit), which is how a replaced index
/// is retired.
package final class LoadedIndex: Sendable {
    package let index: CallDirIndex
    /// The content checksum (hex CRC-32 of the whole file): the index's identity in answers.
    package let checksum: String
    /// Unix seconds recorded at compile time, 0 when not recorded.
    package let buildTime: Int64
    /// Unix seconds of the file's mtime: the age of an index without a recorded build time.
    package let fileTime: Int64
    /// Unix seconds when this daemon loaded it.
    package let loadedAt: Int64
    /// Exact numbers and stored ranges (both kinds), and what a CallKit device would load:
    /// the vocabulary of every count calldir prints.
    package let numbers: Int
    package let ranges: Int
    package let deviceEntries: Int64
    /// `{"checksum":...,"buildTime":...}`, rendered once for every answer to copy.
    let identity: [UInt8]
    private let mappings: MappingCount

    init(path: String, mappings: MappingCount) throws {
        var info = stat()
        let fileTime = stat(path, &info) == 0 ? Int64(info.st_mtim.tv_sec) : 0
        index = try CallDirIndex(file: MappedFile(copying: path), verify: true)
        checksum = index.checksumText
        buildTime = index.metadata.buildTime
        self.fileTime = fileTime
        loadedAt = Int64(time(nil))
        numbers = index.blockedCount + index.identifiedCount
        ranges = index.blockedRangeCount + index.identifiedRangeCount
        deviceEntries = index.metadata.deviceEntries
        identity = LoadedIndex.identityJSON(checksum: checksum, buildTime: buildTime)
        self.mappings = mappings
        mappings.opened()
    }

    deinit { mappings.closed() }
}

/// Counts live mappings, and the most ever live at once (the "at most two" rule is checked
/// against it in tests and exported in /metrics).
final class MappingCount: Sendable {
    let live = Atomic<Int>(0)
    let highWater = Atomic<Int>(0)

    func opened() {
        let now = live.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
        var seen = highWater.load(ordering: .relaxed)
        while now > seen {
            let (exchanged, original) = highWater.compareExchange(expected: seen, desired: now, ordering: .relaxed)
            if exchanged { break }
            seen = original
        }
    }

    func closed() { live.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
}

/// What a reload did.
package enum ReloadOutcome: Sendable {
    case loaded(LoadedIndex)
    /// The file was missing or damaged; the previous index (if any) keeps serving.
    case refused(CallDirError)
    /// The index retired by the last reload was still in use, so a third mapping was not opened;
    /// the watcher tries again on its next tick.
    case deferred
}

/// Owns the index being served and swaps in replacements. Requests read `current` (one
/// uncontended lock, one retain); reloads run one at a time under a separate lock, open and
/// verify the new file while the old one keeps serving, then swap the reference. At most two
/// indexes are ever mapped: a reload waits for the index retired by the previous one to be
/// released by its last request before it maps a new file.
package final class IndexHolder: Sendable {
    package let path: String
    let metrics: Metrics
    let logger: Logger
    let mappings = MappingCount()
    /// How long a reload waits for the previously retired index to be released (milliseconds).
    let retireWaitMilliseconds: Int
    private let current = Mutex<LoadedIndex?>(nil)
    private let reloadState = Mutex<ReloadState>(ReloadState())
    /// Why the last load failed. Not in `reloadState`: that lock is held through a whole load
    /// (seconds for a large file), and /healthz and 503 answers read this on an event loop.
    private let lastFailure = Mutex<CallDirError?>(nil)
    /// The last load's outcome as /healthz shows it (`lastReload`), rendered once per load.
    private let lastOutcome = Mutex<[UInt8]>(Array("null".utf8))

    private struct ReloadState {
        weak var retired: LoadedIndex?
        /// The file last looked at (loaded or refused): the watcher reloads when it changes.
        var lastSeen: FileIdentity?
        var missingReported = false
    }

    package init(path: String, metrics: Metrics, logger: Logger, retireWaitMilliseconds: Int = 2000) {
        self.path = path
        self.retireWaitMilliseconds = retireWaitMilliseconds
        self.metrics = metrics
        self.logger = logger
    }

    /// The index to answer from, or nil before the first successful load.
    @inline(__always)
    package var snapshot: LoadedIndex? { current.withLock { $0 } }

    /// Why the last load failed, for /healthz before anything is loaded.
    package var lastError: CallDirError? { lastFailure.withLock { $0 } }

    /// The last load's outcome, a JSON object: `{"ok":true,"reason":"file replaced","at":UNIX,
    /// "checksum":"…","error":null}`, or `"ok":false` with the refusal's `error` (and the
    /// checksum still served, if any); `null` before the first load. A refused replacement is
    /// visible here while /healthz stays 200 on the index still served.
    package var lastReloadJSON: [UInt8] { lastOutcome.withLock { $0 } }

    /// Indexes mapped right now, and the most ever mapped at once.
    package var mappedCount: Int { mappings.live.load(ordering: .relaxed) }
    package var mappedHighWater: Int { mappings.highWater.load(ordering: .relaxed) }

    /// Opens and verifies the file at `path` and swaps it in (SIGHUP, start-up, tests).
    @discardableResult
    package func reload(reason: String) -> ReloadOutcome {
        reloadState.withLock { state in
            let identity = FileIdentity(path: path)
            return load(&state, identity: identity, reason: reason)
        }
    }

    /// Reloads when the file at `path` was replaced (new inode, size or mtime) since it was last
    /// looked at. A file that disappears is reported and counted once.
    package func reloadIfReplaced() {
        reloadState.withLock { state in
            guard let identity = FileIdentity(path: path) else {
                if !state.missingReported {
                    _ = load(&state, identity: nil, reason: "file removed")
                }
                return
            }
            if identity != state.lastSeen { _ = load(&state, identity: identity, reason: "file replaced") }
        }
    }

    private func load(_ state: inout ReloadState, identity: FileIdentity?, reason: String) -> ReloadOutcome {
        guard waitForRetired(&state) else {
            logger.warning("reload deferred: the previous index is still in use", metadata: ["reason": "\(reason)"])
            return .deferred
        }
        let clock = ContinuousClock()
        let started = clock.now
        let loaded: LoadedIndex
        do {
            loaded = try LoadedIndex(path: path, mappings: mappings)
        } catch {
            let failure = error as? CallDirError ?? CallDirError(.io, "\(error)", path: path)
            state.lastSeen = identity
            state.missingReported = identity == nil
            lastFailure.withLock { $0 = failure }
            record(ok: false, reason: reason, checksum: snapshot?.checksum, error: failure.description)
            metrics.reloadFailures.increment()
            let serving = snapshot.map { "still serving \($0.checksum)" } ?? "nothing loaded yet"
            logger.error("index refused, \(serving): \(failure.description)", metadata: ["reason": "\(reason)"])
            return .refused(failure)
        }
        let previous = current.withLock { slot in
            let old = slot
            slot = loaded
            return old
        }
        state.retired = previous
        state.lastSeen = identity
        state.missingReported = false
        lastFailure.withLock { $0 = nil }
        record(ok: true, reason: reason, checksum: loaded.checksum, error: nil)
        metrics.reloads.increment()
        let elapsed = clock.now - started
        let ms = Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("index loaded and verified", metadata: [
            "reason": "\(reason)", "path": "\(path)", "checksum": "\(loaded.checksum)",
            "numbers": "\(loaded.numbers)", "ranges": "\(loaded.ranges)", "ms": "\(Int(ms.rounded()))",
            "replaced": "\(previous?.checksum ?? "none")",
        ])
        return .loaded(loaded)
    }

    private func record(ok: Bool, reason: String, checksum: String?, error: String?) {
        var json: [UInt8] = []
        let bound = 128 + JSONWriter.stringBound(reason) + JSONWriter.stringBound(checksum ?? "") + JSONWriter.stringBound(error ?? "")
        json.appendJSON(maxBytes: bound) { w in
            w.text(ok ? "{\"ok\":true,\"reason\":" : "{\"ok\":false,\"reason\":")
            w.string(reason)
            w.text(",\"at\":")
            w.decimal(Int64(time(nil)))
            w.text(",\"checksum\":")
            if let checksum { w.string(checksum) } else { w.text("null") }
            w.text(",\"error\":")
            if let error { w.string(error) } else { w.text("null") }
            w.byte(UInt8(ascii: "}"))
        }
        lastOutcome.withLock { $0 = json }
    }

    /// Waits (2 s by default) for the last retired index to be released by its last request.
    /// Requests hold an index only while they compute an answer, so this is normally instant.
    private func waitForRetired(_ state: inout ReloadState) -> Bool {
        for _ in 0..<retireWaitMilliseconds {
            if state.retired == nil { return true }
            usleep(1000)
        }
        return state.retired == nil
    }
}

/// What identifies one version of the index file: a compile publishes by rename, so a new
/// version has a new inode (and the old inode cannot be reused while it is still mapped); an
/// in-place rewrite changes size, mtime or ctime.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var mtimeSeconds: Int64
    var mtimeNanoseconds: Int64
    var ctimeSeconds: Int64
    var ctimeNanoseconds: Int64

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        mtimeSeconds = Int64(info.st_mtim.tv_sec)
        mtimeNanoseconds = Int64(info.st_mtim.tv_nsec)
        ctimeSeconds = Int64(info.st_ctim.tv_sec)
        ctimeNanoseconds = Int64(info.st_ctim.tv_nsec)
    }
}
