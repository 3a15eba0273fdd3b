import CallDirReader

/// What the coordinator needs from the platform: on iOS, `CXCallDirectoryManager` and
/// `UIApplication`'s background tasks (`Examples/Sources/CallDirApp` has that implementation);
/// in tests, a simulated device. Small on purpose: everything else is the library's.
public protocol CallDirectoryPlatform: Sendable {
    /// Runs the extension once (`reloadExtension(withIdentifier:)`); nil on success, else
    /// CallKit's error (`CallDirectoryErrorCode(code:)` of the NSError's code).
    func reloadExtension() async -> CallDirectoryErrorCode?
    /// `getEnabledStatusForExtension`: true, false, or nil when it cannot tell.
    func isExtensionEnabled() async -> Bool?
    /// Asks for time to finish when the app leaves the foreground; returns a token for `end`.
    func beginBackgroundTask() async -> Int
    /// Ends the background task `beginBackgroundTask` started.
    func endBackgroundTask(_ token: Int) async
    /// Waits before `loadAll` looks again: after error 7 (another load under way), and while
    /// the extension has not confirmed a request CallKit reported done. The default sleeps;
    /// tests record the waits instead.
    func pause(seconds: Double) async
}

extension CallDirectoryPlatform {
    public func pause(seconds: Double) async {
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}

/// Why `ReloadCoordinator.loadAll` stopped before the device held the index. After a failure
/// the records say "start over", so the next `loadAll` begins with a complete request; after
/// `.cancelled` or error 7 they keep the progress, and the next `loadAll` resumes.
public struct ReloadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Why `loadAll` stopped.
    public enum Reason: Equatable, Sendable {
        /// CallKit failed the last request (its store is empty now).
        case callKit(CallDirectoryErrorCode)
        /// `reloadExtension` reported success but the extension left no checkpoint (an
        /// expired completion, a record it could not write): nothing is known to be stored.
        case noCheckpoint
        /// CallKit reported the last request done, but the extension's completion handler did
        /// not confirm it within a few seconds, twice (an expired completion may still come,
        /// and the store would then be empty): nothing is built on it. The next `loadAll`
        /// adopts the request once confirmed, else starts over.
        case unconfirmed
        /// The user has not enabled the extension (Settings > Phone > Call Blocking & Identification).
        case disabled
        /// A record could not be read or written.
        case io(CallDirError)
        /// The task running `loadAll` was cancelled (e.g. the background time expired): the
        /// records are consistent between requests, and the next `loadAll` resumes there.
        case cancelled
    }

    /// Why it stopped.
    public var reason: Reason
    /// Requests tried in this `loadAll`.
    public var requests: Int

    /// An error for `reason` after `requests` requests.
    public init(reason: Reason, requests: Int) {
        self.reason = reason
        self.requests = requests
    }

    public var description: String {
        switch reason {
        case .callKit(let code): return "reload failed after \(requests) requests: \(code)"
        case .noCheckpoint: return "reload reported success but the extension left no checkpoint (\(requests) requests); start over"
        case .unconfirmed: return "the last request reported success but the extension has not confirmed it (\(requests) requests); the next loadAll adopts it once confirmed"
        case .disabled: return "the Call Directory extension is disabled: the user must enable it in Settings"
        case .io(let error): return "a load record could not be kept: \(error)"
        case .cancelled: return "loading stopped after \(requests) requests (cancelled); the next loadAll resumes"
        }
    }
}

/// The app's half of the loading protocol (docs/CALLKIT.md): one load at a time, request after
/// request until the device holds the whole index, committing a checkpoint only after CallKit
/// reported success for the request that left it (or the extension confirmed it: a relaunch
/// or a system-run request costs no re-send), building on a request only once the extension
/// confirmed it, clearing pending only if no other request wrote since
/// (`LoadRecord`'s generation), and starting over after any failure or any record the app did
/// not commit. The records' side is in `ReloadCoordinator+Records.swift`. Keep one coordinator per App Group folder: the actor serialises its own
/// calls, not those of a second instance. Installs go through it too, so an install never interleaves
/// with a load. Portable (no Foundation): Linux tests drive it against `CallKitSimulator`.
public actor ReloadCoordinator {
    /// The App Group folder the app and the extension share.
    public nonisolated let folder: SharedFolder
    /// CallKit as the app sees it (`CallKitPlatform` on a phone, a simulator in tests).
    public let platform: any CallDirectoryPlatform
    /// Consecutive failed requests tolerated before `loadAll` gives up (each failure empties
    /// the store; the next `loadAll` starts over).
    public let maxConsecutiveFailures: Int
    /// Requests per `loadAll` at most (a 15M-entry list at 1M per request needs 15).
    public let maxRequests: Int
    /// Entries per request the app asks for at first (the extension's own size caps it); after
    /// a kill (error 2) or an expiry (however CallKit reports it) it halves, down to
    /// `minimumRequestSize`, and the committed record keeps it across launches; it doubles back
    /// (up to this) after `successesBeforeGrowing` requests in a row, though never, within one
    /// `loadAll`, back to a size that failed in it (a load that cannot finish at that size
    /// would start over forever).
    public let requestSize: Int
    /// The smallest request size the halving goes down to.
    public let minimumRequestSize: Int
    /// How the user's layer is resolved (the extension must use the same region): a load is
    /// finished only when the device holds list ⊕ the layer and contacts in the folder now.
    /// Nil: the list alone.
    public let personal: PersonalSettings?

    private var locked = false
    /// What the `loadAll` under way has seen (reset at each).
    var progress = LoadProgress()
    private var waiters: [CheckedContinuation<Void, Never>] = []
    /// Tests: called at each step; a throw stops `loadAll` on the spot, as a killed app would.
    package var stepHook: (@Sendable (ReloadStep) throws -> Void)?

    /// A coordinator for `folder`; one per folder (see above).
    public init(folder: SharedFolder, platform: any CallDirectoryPlatform, maxConsecutiveFailures: Int = 3, maxRequests: Int = 10_000,
                requestSize: Int = DeviceLoader.defaultRequestSize, minimumRequestSize: Int = 10_000, personal: PersonalSettings? = nil) {
        self.folder = folder
        self.platform = platform
        self.maxConsecutiveFailures = max(1, maxConsecutiveFailures)
        self.maxRequests = max(1, maxRequests)
        self.requestSize = max(1, requestSize)
        self.minimumRequestSize = max(1, minimumRequestSize)
        self.personal = personal
    }

    package func setStepHook(_ hook: (@Sendable (ReloadStep) throws -> Void)?) { stepHook = hook }

    /// Installs `candidate` (see `IndexInstaller`), waiting for a load under way to end first.
    /// Call `loadAll` next.
    @discardableResult
    public func install(_ candidate: String, expecting expected: IndexInstaller.Expectation = .init(),
                        check: (@Sendable (MappedFile) throws -> Void)? = nil) async throws -> IndexInstaller.Installed {
        await acquire()
        defer { release() }
        try stepHook?(.beforeInstall)
        return try IndexInstaller(folder: folder).install(candidate, expecting: expected, check: check)
    }

    /// Patches the installed index with `delta` and installs the result (see
    /// `IndexInstaller.installDelta`), waiting for a load under way to end first. Call
    /// `loadAll` next: it sends only the changes when the device held the old index.
    @discardableResult
    public func installDelta(_ delta: String, expecting expected: IndexInstaller.Expectation = .init(),
                             check: (@Sendable (MappedFile) throws -> Void)? = nil) async throws -> IndexInstaller.Installed {
        await acquire()
        defer { release() }
        try stepHook?(.beforeInstall)
        return try IndexInstaller(folder: folder).installDelta(delta, expecting: expected, check: check)
    }

    /// Whether the device holds the installed index ⊕ the user's layer now (a finished,
    /// committed load of it).
    public func isLoadedCompletely() async throws -> Bool { try await loadedCheckpoint() != nil }

    /// The finished checkpoint when `isLoadedCompletely`, else nil.
    public func loadedCheckpoint() async throws -> LoadCheckpoint? {
        await acquire()
        defer { release() }
        guard let checkpoint = try IndexInstaller(folder: folder).loadedCheckpoint(), checkpoint.overlayDigest == (try wantedOverlay()) else {
            return nil
        }
        return checkpoint
    }

    /// The contacts' numbers of `source` (e.g. `ContactStoreSource` after
    /// `CNContactStoreDidChangeNotification`: every number, re-read), normalised with the
    /// layer's region, for `publishContacts`. Runs on the caller's thread.
    public nonisolated func contactNumbers(from source: some ContactsSource) throws -> [Int64] {
        guard let personal else { return [] }
        var skipped = 0
        return try source.numbers(normalizer: personal.normalizer, skipped: &skipped)
    }

    /// Publishes the contacts' numbers for the extension (`contacts.vcf`); returns true when
    /// they changed: call `loadAll` next, which sends only the changed entries.
    @discardableResult
    public func publishContacts(_ numbers: [Int64]) async throws -> Bool {
        await acquire()
        defer { release() }
        return try io { try folder.writeContacts(numbers) }
    }

    /// When the earliest allowance of the layer expires (Unix seconds): schedule a `loadAll`
    /// then (e.g. a `BGProcessingTask`), which sends the expiry as a change.
    public func nextExpiry() throws -> Int64? {
        try personal.map(folder.currentOverlay)?.nextExpiry
    }

    /// The digest of the overlay the device should hold now (0: none).
    private func wantedOverlay() throws -> UInt64 {
        try io { try personal.map(folder.currentOverlay)?.digest ?? 0 }
    }

    /// Reloads until the device holds the whole index; returns the finished checkpoint.
    /// Throws `ReloadError`; anything a step hook throws passes through unchanged.
    @discardableResult
    public func loadAll() async throws -> LoadCheckpoint {
        await acquire()
        defer { release() }
        // Switched off in Settings: no background time asked, no request (it would fail).
        if await platform.isExtensionEnabled() == false { throw ReloadError(reason: .disabled, requests: 0) }
        let token = await platform.beginBackgroundTask()
        do {
            let finished = try await reloadUntilFinished()
            await platform.endBackgroundTask(token)
            return finished
        } catch {
            await platform.endBackgroundTask(token)
            throw error
        }
    }

    private func reloadUntilFinished() async throws -> LoadCheckpoint {
        _ = try wantedOverlay()  // a layer the extension could not read: say so before any request
        progress = LoadProgress()
        while true {
            // Records left over: a confirmed request is adopted (no re-send), anything else the
            // app did not commit means the store may be empty: start over.
            // An adopted record may be of the index installed before (a system-run request, then
            // an install): finished only if it names the index installed now.
            if let adopted = try await settleLeftOvers(), adopted.isFinished, isInstalled(adopted), try isWanted(adopted) { return finished(adopted) }
            if Task.isCancelled { throw ReloadError(reason: .cancelled, requests: progress.requests) }
            try stepHook?(.beforeReload)
            // No committed record yet: a start-over record asks for the coordinator's size.
            if try io({ try folder.readCommitted() }) == nil { try startOver(halvingRequests: false) }
            // The number the extension gives this request: one above every record now there
            // (after error 7 the other load's record may still be pending).
            let expected = try io {
                LoadRecord.nextGeneration(after: [try folder.readCommitted(), try folder.readPending(), try folder.read(folder.takenPath)])
            }
            progress.requests += 1
            if let code = await platform.reloadExtension() {
                try await failed(code, expected: expected)
                continue
            }
            progress.otherLoadEnded()
            try stepHook?(.afterSuccess)
            guard let checkpoint = try await settleRequest(expected: expected) else { continue }
            progress.failures = 0
            try growAfterSuccess()
            // Finished with another layer than the folder's now (an edit, an expiry during the
            // load): the next request sends the change.
            if checkpoint.isFinished, try isWanted(checkpoint) { return finished(checkpoint) }
            if progress.requests >= maxRequests { throw ReloadError(reason: .noCheckpoint, requests: progress.requests) }
        }
    }

    /// CallKit failed the request with `code`. Error 7: another load (usually one the system
    /// started) is running, this request never ran, and the records are the other's: wait as
    /// long as it runs (1, 2, 4, 8, 8 ... s, at most `otherLoadPatience` in all), keeping its
    /// records and ours (`settleLeftOvers` adopts what it confirms). Anything else empties the
    /// store: start over, halving the size after a kill or an expiry however reported (this
    /// request's under-way record: it stopped feeding, or its completion expired).
    private func failed(_ code: CallDirectoryErrorCode, expected: UInt64) async throws {
        if code == .currentlyLoading {
            try stepHook?(.afterFailure)
            let wait = Double(1 << min(progress.busyAnswers, 3))
            progress.busyAnswers += 1
            guard progress.busyWaited + wait <= Self.otherLoadPatience else { throw ReloadError(reason: .callKit(code), requests: progress.requests) }
            progress.busyWaited += wait
            await platform.pause(seconds: wait)
            return
        }
        progress.otherLoadEnded()
        let stopped = LoadRecord.decode(try io { try folder.readPending() }).map { $0.generation == expected && $0.checkpoint == nil } ?? false
        try startOver(halvingRequests: code == .loadingInterrupted || stopped)
        try stepHook?(.afterFailure)
        if code == .extensionDisabled || code == .noExtensionFound { throw ReloadError(reason: .callKit(code), requests: progress.requests) }
        try fail(.callKit(code))
    }

    /// Counts a failed request; throws `reason` after `maxConsecutiveFailures` in a row or
    /// `maxRequests` in all.
    func fail(_ reason: ReloadError.Reason) throws {
        progress.failures += 1
        if progress.failures >= maxConsecutiveFailures || progress.requests >= maxRequests {
            throw ReloadError(reason: reason, requests: progress.requests)
        }
    }

    private func isInstalled(_ checkpoint: LoadCheckpoint) -> Bool {
        (try? CallDirIndex(path: folder.indexPath)).map(checkpoint.names) == true
    }

    private func isWanted(_ checkpoint: LoadCheckpoint) throws -> Bool { checkpoint.overlayDigest == (try wantedOverlay()) }

    private func finished(_ checkpoint: LoadCheckpoint) -> LoadCheckpoint {
        try? folder.remove(folder.previousIndexPath)  // the device holds the index: no update needs it
        folder.removeHeldOverlays(keeping: [checkpoint.overlayDigest])  // nor another layer
        return checkpoint
    }

    func io<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as CallDirError { throw ReloadError(reason: .io(error), requests: 0) }
    }

    private func acquire() async {
        if !locked {
            locked = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty { locked = false } else { waiters.removeFirst().resume() }
    }
}

/// The steps of `loadAll` a test can stop at (the app killed there).
package enum ReloadStep: Sendable, Equatable {
    case beforeInstall, beforeReload, afterFailure, afterSuccess, afterCommit
    /// Each look at pending while the app waits for the extension to confirm a request.
    case awaitingConfirmation
}
