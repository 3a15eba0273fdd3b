/// A sharded feed (FEED-PROTOCOL.md, "Sharded feeds"): one channel per Call Directory
/// extension, each a normal signed feed of its own under `shards/<extension id>/` (its own
/// manifest, serials, deltas and key rotation statements), whose feed id is the extension's
/// bundle identifier. A follower of one extension pins that id, so a mirror that serves
/// another channel's manifest (signed by the same key) is refused (check `feed`), and it needs
/// nothing unsigned to decide what to install: it knows its extensions, the feed knows nothing
/// else. The feed's `shards.json` (FORMAT.md, "Shard manifest", with `shards.json.sig`) is for
/// servers that keep a folder of shards (`calldir update --shards`); a phone never reads it.
public enum FeedChannel {
    /// The folder of the channels, in the feed folder.
    public static let folder = "shards"
    /// The shard manifest's copy in the feed folder, published after every channel.
    public static let shardManifestName = "shards.json"
    /// Its detached signature (the `manifest.json.sig` line format), by the feeds' key.
    public static let shardManifestSignatureName = "shards.json.sig"

    /// The channel of `extensionIdentifier`, relative to the feed folder (`shards/<id>`). The
    /// identifier is the channel's feed id, so it must be one (1 to 64 of `A-Z a-z 0-9 . _ -`),
    /// and not `.` or `..`: else `.usage`.
    public static func path(_ extensionIdentifier: String) throws -> String {
        guard FeedManifest.isValidFeedId(extensionIdentifier), extensionIdentifier != ".", extensionIdentifier != ".." else {
            throw FeedError(.usage, "the extension identifier \"\(extensionIdentifier)\" cannot name a channel: a channel's feed id is "
                            + "its extension's bundle identifier, 1 to 64 letters, digits, '.', '_' or '-'")
        }
        return folder + "/" + extensionIdentifier
    }
}

/// One channel of a sharded feed as a feed of its own: every file the follower asks for
/// (`manifest.json`, `index/…`, `delta/…`, `root/…`) is taken below `shards/<extension id>/`
/// of the feed `base` reaches.
public struct FeedChannelTransport<Base: FeedTransport>: FeedTransport {
    /// The sharded feed's transport.
    public let base: Base
    /// The channel's folder, relative to the feed (`shards/<extension id>/`).
    public let prefix: String

    /// The channel of `extensionIdentifier` in the feed `base` reaches (`FeedChannel.path`).
    public init(_ base: Base, extensionIdentifier: String) throws {
        self.base = base
        prefix = try FeedChannel.path(extensionIdentifier) + "/"
    }

    /// The channel's file `path`, fetched through `base`.
    public func fetch(_ path: String, maxBytes: Int, ifNoneMatch: String?) async throws -> FeedFetched? {
        try await base.fetch(prefix + path, maxBytes: maxBytes, ifNoneMatch: ifNoneMatch)
    }

    /// The channel's file `path`, downloaded through `base`.
    public func download(_ path: String, maxBytes: Int, into sink: FeedDownloadSink) async throws {
        try await base.download(prefix + path, maxBytes: maxBytes, into: sink)
    }

    /// Where the channel's file `path` is.
    public func location(_ path: String) -> String { base.location(prefix + path) }
}
