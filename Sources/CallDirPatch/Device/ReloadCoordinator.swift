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
    func endBackgroundTask(_ token: Int) async
}

/// Why `ReloadCoordinator.loadAll` stopped before the device held the index. After any of
/// them the records say "start over", so the next `loadAll` begins with a complete request.
public struct ReloadError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// CallKit failed the last request (its store is empty now).
        case callKit(CallDirectoryErrorCode)
        /// `reloadExtension` reported success but the extension left no checkpoint (an
        /// expired completion, a record it could not write): nothing is known to be stored.
        case noCheckpoint
        /// The user has not enabled the extension (Settings > Phone > Call Blocking & Identification).
        case disabled
        /// A record could not be read or written.
        case io(CallDirError)
    }

    public var reason: Reason
    /// Requests tried in this `loadAll`.
    public var requests: Int

    public init(reason: Reason, requests: Int) {
        self.reason = reason
        self.requests = requests
    }

    public var description: String {
        switch reason {
        case .callKit(let code): return "reload failed after \(requests) requests: \(code)"
        case .noCheckpoint: return "reload reported success but the extension left no checkpoint (\(requests) requests); start over"
        case .disabled: return "the Call Directory extension is disabled: the user must enable it in Settings"
        case .io(let error): return "a load record could not be kept: \(error)"
        }
    }
}

/// The app's half of the loading protocol (docs/CALLKIT.md): one load at a time, request after
/// request until the device holds the whole index, committing a checkpoint only after CallKit
/// reported success and the extension left it, and starting over after any failure or any
/// record the app did not commit. Installs go through it too, so an install never interleaves
/// with a load. Portable (no Foundation): Linux tests drive it against `CallKitSimulator`.
public actor ReloadCoordinator {
    public nonisolated let folder: SharedFolder
    public let platform: any CallDirectoryPlatform
    /// Consecutive failed requests tolerated before `loadAll` gives up (each failure empties
    /// the store; the next `loadAll` starts over).
    public let maxConsecutiveFailures: Int
    /// Requests per `loadAll` at most (a 15M-entry list at 1M per request needs 15).
    public let maxRequests: Int

    private var locked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    /// Tests: called at each step; a throw stops `loadAll` on the spot, as a killed app would.
    package var stepHook: (@Sendable (ReloadStep) throws -> Void)?

    public init(folder: SharedFolder, platform: any CallDirectoryPlatform, maxConsecutiveFailures: Int = 3, maxRequests: Int = 10_000) {
        self.folder = folder
        self.platform = platform
        self.maxConsecutiveFailures = max(1, maxConsecutiveFailures)
        self.maxRequests = max(1, maxRequests)
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

    /// Whether the device holds the installed index (a finished, committed load of it).
    public func isLoadedCompletely() async throws -> Bool {
        await acquire()
        defer { release() }
        return try IndexInstaller(folder: folder).isLoadedCompletely()
    }

    /// Reloads until the device holds the whole index; returns the finished checkpoint.
    /// Throws `ReloadError`; anything a step hook throws passes through unchanged.
    @discardableResult
    public func loadAll() async throws -> LoadCheckpoint {
        await acquire()
        defer { release() }
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
        if await platform.isExtensionEnabled() == false { throw ReloadError(reason: .disabled, requests: 0) }
        var requests = 0
        var failures = 0
        func fail(_ reason: ReloadError.Reason) throws {
            failures += 1
            if failures >= maxConsecutiveFailures || requests >= maxRequests { throw ReloadError(reason: reason, requests: requests) }
        }
        while true {
            // A record nobody committed: the store may be empty, so the next request is complete.
            if LoadCheckpoint.pendingRecord(try io { try folder.readPending() }) != .none { try startOver() }
            try stepHook?(.beforeReload)
            requests += 1
            if let code = await platform.reloadExtension() {
                try startOver()
                try stepHook?(.afterFailure)
                if code == .extensionDisabled || code == .noExtensionFound { throw ReloadError(reason: .callKit(code), requests: requests) }
                try fail(.callKit(code))
                continue
            }
            try stepHook?(.afterSuccess)
            guard case .fed(let checkpoint) = LoadCheckpoint.pendingRecord(try io { try folder.readPending() }) else {
                try startOver()
                try fail(.noCheckpoint)
                continue
            }
            // Commit: committed first, then pending goes. A crash in between leaves pending,
            // which means "start over": safe, never a resume over an empty store.
            try io { try folder.writeAtomically(checkpoint.bytes, to: folder.committedPath) }
            try stepHook?(.afterCommit)
            try io { try folder.remove(folder.pendingPath) }
            failures = 0
            if checkpoint.isFinished {
                try? folder.remove(folder.previousIndexPath)  // the device holds the index: no update needs it
                return checkpoint
            }
            if requests >= maxRequests { throw ReloadError(reason: .noCheckpoint, requests: requests) }
        }
    }

    /// Forgets all progress: committed first, then pending (a crash in between still leaves
    /// pending, which says the same).
    private func startOver() throws {
        try io {
            try folder.remove(folder.committedPath)
            try folder.remove(folder.pendingPath)
        }
    }

    private func io<T>(_ body: () throws -> T) throws -> T {
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
}
