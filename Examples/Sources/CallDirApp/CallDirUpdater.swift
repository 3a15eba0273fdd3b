import CallDirFeed
import CallDirPatch
import CallDirReader
#if os(iOS)
import CallDirShared
#endif

/// The app's entry points: one coordinator for the app's lifetime (it serialises installs and
/// loads). Portable: on iOS it runs with `CallKitPlatform` and the App Group folder; anywhere
/// else give it a folder and a platform (the library's tests use a simulated phone).
public final class CallDirUpdater: Sendable {
    public let coordinator: ReloadCoordinator

    public init(folder: SharedFolder, platform: any CallDirectoryPlatform) {
        coordinator = ReloadCoordinator(folder: folder, platform: platform)
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
extension CallDirUpdater {
    /// The app's updater: the App Group folder and CallKit.
    public static let shared = CallDirUpdater(folder: SharedFiles.folder(), platform: CallKitPlatform())
}
#endif
