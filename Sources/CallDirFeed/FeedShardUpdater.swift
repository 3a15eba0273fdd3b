import CallDirDevice
import CallDirReader

/// The app's side of a sharded feed (FEED-PROTOCOL.md, "Sharded feeds"), in one call: for each
/// of the app's extensions (`ShardCoordinator.extensions`), `FeedPhoneUpdater.install` over that
/// extension's channel (`shards/<extension id>/`, pinned to its feed id, the extension's
/// identifier) into that extension's coordinator; then one `ShardCoordinator.loadAll()`. A
/// channel whose index did not change costs its manifest and signature and nothing else, and
/// its extension gets no request. A refused or failed channel (a rollback, a tampered
/// signature, a wrong hash, a server error) is reported and never stops the others: each
/// extension is a store of its own, loaded from its own verified index.
public struct FeedShardUpdater: Sendable {
    /// The follower that checks each channel (its keys, clock and progress; its `pinnedFeed` is
    /// replaced by each channel's extension identifier).
    public let follower: FeedFollower
    /// The app's extensions and their coordinators.
    public let shards: ShardCoordinator

    /// An updater of `shards` from the channels of a feed signed by `follower`'s keys.
    public init(follower: FeedFollower, shards: ShardCoordinator) {
        self.follower = follower
        self.shards = shards
    }

    /// One extension's channel and its outcome.
    public struct Channel: Sendable, Equatable {
        /// The extension (and the channel's feed id).
        public var extensionIdentifier: String
        /// What its channel did: `FeedPhoneUpdater.install`'s result (up to date, or installed
        /// via a delta or the full index), or why the channel was refused or failed (the check
        /// names it; its index, state and store are as they were).
        public var outcome: Swift.Result<FeedPhoneUpdater.Result, FeedError>
    }

    /// What an update did: each channel, then each extension's load.
    public struct Report: Sendable {
        /// Each extension's channel, in `ShardCoordinator.extensions`' order.
        public var channels: [Channel]
        /// `ShardCoordinator.loadAll`'s outcomes.
        public var loads: [(extensionIdentifier: String, outcome: ShardCoordinator.Outcome)]
    }

    /// The updater of one extension's channel (nil for an extension the app does not have).
    public func updater(for extensionIdentifier: String) -> FeedPhoneUpdater? {
        guard let coordinator = shards.coordinator(for: extensionIdentifier) else { return nil }
        var channel = follower
        channel.pinnedFeed = extensionIdentifier
        return FeedPhoneUpdater(follower: channel, coordinator: coordinator)
    }

    /// Installs each channel's new index (a delta when it can), then calls
    /// `ShardCoordinator.loadAll()` once (an extension whose store holds its index already
    /// gets no request). Throws only what `loadAll` throws (and a cancellation).
    public func update(transport: some FeedTransport) async throws -> Report {
        var channels: [Channel] = []
        for id in shards.extensions {
            channels.append(Channel(extensionIdentifier: id, outcome: await install(id, transport: transport)))
        }
        return Report(channels: channels, loads: try await shards.loadAll())
    }

    private func install(_ id: String, transport: some FeedTransport) async -> Swift.Result<FeedPhoneUpdater.Result, FeedError> {
        let folder = shards.coordinator(for: id)!.folder
        do {
            let channel = try FeedChannelTransport(transport, extensionIdentifier: id)
            try folder.create()
            return .success(try await updater(for: id)!.install(transport: channel))
        } catch let error as FeedError {
            return .failure(error)
        } catch let error as CallDirError {
            return .failure(FeedFollower.feedError(error, source: folder.path))
        } catch {
            return .failure(FeedError(.install, "\(error)", path: folder.path))
        }
    }
}
