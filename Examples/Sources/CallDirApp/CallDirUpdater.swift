import CallDirFeed
import CallDirDevice
import CallDirReader
#if os(iOS)
import CallDirShared
#endif

/// The app's entry points: one coordinator for the app's lifetime (it serialises installs and
/// loads). Portable: on iOS it runs with `CallKitPlatform` and the App Group folder; anywhere
/// else give it a folder and a platform (the library's tests use a simulated phone).
public final class CallDirUpdater: Sendable {
    public let coordinator: ReloadCoordinator

    /// `personal`: the user's layer, resolved as the extension does (same region); nil: the list alone.
    public init(folder: SharedFolder, platform: any CallDirectoryPlatform, personal: PersonalSettings? = nil) {
        coordinator = ReloadCoordinator(folder: folder, platform: platform, personal: personal)
    }

    /// After downloading a new index (or patching a delta into one) to `path`: install it and
    /// load it into the extension. Returns nil once the device holds it, or why not (then call
    /// `resume()` later, e.g. at the next launch).
    public func installAndLoad(_ path: String, expecting expected: IndexInstaller.Expectation = .init()) async -> String? {
        do {
            try await coordinator.install(path, expecting: expected)
        } catch {
            return "not installed, the previous index stays: \(error)"
        }
        return await resume()
    }

    /// At launch: finishes (or restarts) whatever load is not done.
    public func resume() async -> String? {
        do {
            try await coordinator.loadAll()
            return nil
        } catch {
            return "\(error)"
        }
    }
}

extension CallDirUpdater {
    /// From a signed feed to the device in one call: checks the manifest with the pinned keys,
    /// downloads the delta from the installed list (or the full index), patches and installs it,
    /// and loads it (only the changes when the device held the old list). On iOS the transport
    /// is `URLSessionFeedTransport`. Returns nil when the device holds the feed's list.
    public func follow(_ transport: some FeedTransport, trusted: [FeedPublicKey]) async -> String? {
        do {
            _ = try await FeedPhoneUpdater(follower: FeedFollower(trusted: trusted), coordinator: coordinator).update(transport: transport)
            return nil
        } catch {
            return "\(error)"
        }
    }
}

#if os(iOS)
import Foundation

extension CallDirUpdater {
    /// The app's updater: the App Group folder and CallKit. Throws (a `.usage` error naming the
    /// fix) when the app lacks the App Group. When the background time runs out, the load under
    /// way (run through `resumeInBackground`) stops after its current request, records
    /// consistent, and the rest is scheduled as a `BGProcessingTask`. Call
    /// `CallDirBackgroundLoading.register(identifier: CallDirIdentifiers.backgroundLoad,
    /// coordinator: updater.coordinator)` before launch finishes.
    public static func make() throws -> CallDirUpdater {
        let platform = CallKitPlatform(extensionIdentifier: CallDirIdentifiers.extensionIdentifier) {
            RunningLoad.current.cancel()
            CallDirBackgroundLoading.schedule(identifier: CallDirIdentifiers.backgroundLoad)
        }
        return CallDirUpdater(folder: try SharedFiles.folder(), platform: platform,
                              personal: try PersonalSettings(region: CallDirIdentifiers.region))
    }

    /// `resume()` as a task the background-time expiry can cancel.
    public func resumeInBackground() async -> String? {
        await RunningLoad.current.run { await self.resume() }
    }
}

/// The load the app runs now, so that the expiration handler can cancel it.
final class RunningLoad: @unchecked Sendable {  // `task` is guarded by `lock`
    static let current = RunningLoad()
    private let lock = NSLock()
    private var task: Task<String?, Never>?

    func run(_ body: @escaping @Sendable () async -> String?) async -> String? {
        let task = Task { await body() }
        set(task)
        return await task.value
    }

    func cancel() {
        current()?.cancel()
    }

    // Synchronous, so callable from `run`: `NSLock` is unavailable from async contexts in the iOS SDK.
    private func set(_ task: Task<String?, Never>) {
        lock.lock()
        self.task = task
        lock.unlock()
    }

    private func current() -> Task<String?, Never>? {
        lock.lock()
        defer { lock.unlock() }
        return task
    }
}
#endif
