import CallDirFeed
import CallDirReader
import CallDirWriter

/// `calldir publish --shards DIR/shards.json`: each shard as its extension's channel
/// (FEED-PROTOCOL.md, "Sharded feeds"), `FeedPublisher.publish` into `shards/<extension id>/`
/// with the extension's identifier as the channel's feed id; then `shards.json` and its
/// signature at the feed's root. A channel whose index is the shard already is left as it is
/// (no new serial: its followers download nothing), unless its manifest has less than half of
/// `--expires` left (then it is published again, the same index: followers fetch the manifest
/// alone) or the key is being rotated (every channel is signed by the new key). A channel the
/// shard manifest no longer names (fewer shards) is given an empty index.
package enum FeedShardPublisher {
    /// One shard's channel after a publication.
    package struct Channel: Sendable {
        /// The extension, and the channel's feed id.
        package var extensionIdentifier: String
        /// The publication; nil when the channel was left as it was.
        package var published: FeedPublisher.Outcome?
        /// The channel's manifest now.
        package var manifest: FeedManifest
        /// A channel of the feed that the shard manifest no longer names (fewer shards): it
        /// carries an empty index, so that its extension's store is emptied.
        package var retired = false
    }

    /// Publishes every shard `shardsPath` names into its channel of `feed`, holding the feed
    /// folder's lock (each channel's too, as `publish` does). Every shard is checked against
    /// the shard manifest before any channel changes.
    package static func publish(shards shardsPath: String, feed: String, key: FeedPrivateKey,
                                options: FeedPublisher.Options) throws -> [Channel] {
        guard options.feedId == nil else {
            throw FeedError(.usage, "--feed-id goes with one index: a sharded feed's channels are named by their extensions' identifiers")
        }
        try FeedPublisher.check(options)
        let set = try ShardSet(manifestPath: shardsPath)  // each shard the file the manifest names
        let manifest = set.manifest
        let shards = try zip(manifest.shards, set.indexes).map { shard, index in
            (shard: shard, file: index.path, channel: feed + "/" + (try FeedChannel.path(shard.extensionIdentifier)),
             sha: FeedFiles.sha256(index.file))
        }
        try FeedFiles.makeFolder(feed)
        return try FeedFiles.withFolderLock(feed) {
            for path in [feed + "/" + FeedChannel.folder] + shards.map({ $0.channel }) where Syscalls.isSymbolicLink(path) {
                throw FeedError(.usage, "a symbolic link: publish writes and prunes only inside the feed folder; nothing was "
                                + "changed (make it a folder)", path: path)
            }
            try FeedFiles.makeFolder(feed + "/" + FeedChannel.folder)
            var channels: [Channel] = []
            for s in shards {
                if let current = unchanged(s.channel, sha: s.sha, feedId: s.shard.extensionIdentifier, key: key, options: options) {
                    channels.append(Channel(extensionIdentifier: s.shard.extensionIdentifier, published: nil, manifest: current))
                    continue
                }
                var settings = options
                settings.feedId = s.shard.extensionIdentifier
                let outcome = try FeedPublisher.publish(index: s.file, feed: s.channel, key: key, options: settings)
                channels.append(Channel(extensionIdentifier: s.shard.extensionIdentifier, published: outcome, manifest: outcome.manifest))
            }
            // Fewer shards than before: a channel no shard names gets an empty index (once), so
            // that its extension's store is emptied rather than keep a shard whose numbers moved.
            let named = Set(shards.map { $0.shard.extensionIdentifier })
            for id in Syscalls.folderEntries(feed + "/" + FeedChannel.folder).sorted() where !named.contains(id) {
                let channel = feed + "/" + FeedChannel.folder + "/" + id
                guard FeedManifest.isValidFeedId(id), Syscalls.exists(channel + "/" + FeedManifest.fileName) else { continue }
                channels.append(try retire(channel, id: id, key: key, options: options))
            }
            // The shard manifest last (for servers that keep a folder of shards), signed as a manifest is.
            let bytes = manifest.encoded
            let path = feed + "/" + FeedChannel.shardManifestName
            try FeedPublisher.publishSigned(bytes, replacing: try FeedFiles.read(path, maxBytes: FeedJSON.maxBytes), to: path,
                                            signature: feed + "/" + FeedChannel.shardManifestSignatureName, key: key, options: options,
                                            role: "the shard manifest")
            return channels
        }
    }

    /// Publishes an empty index into `channel` unless it carries one already (and may stay).
    static func retire(_ channel: String, id: String, key: FeedPrivateKey, options: FeedPublisher.Options) throws -> Channel {
        if let current = unchanged(channel, sha: nil, feedId: id, key: key, options: options), current.index.deviceEntries == 0 {
            return Channel(extensionIdentifier: id, published: nil, manifest: current, retired: true)
        }
        let empty = try FeedFiles.temporaryName(beside: options.temporaryFolder + "/" + id + ".calldir", suffix: ".empty")
        defer {
            _ = Syscalls.unlink(empty)
            TemporaryFiles.unregister(empty)
        }
        try IndexComposer().write(to: empty, temporaryFolder: options.temporaryFolder)
        var settings = options
        settings.feedId = id
        let outcome = try FeedPublisher.publish(index: empty, feed: channel, key: key, options: settings)
        return Channel(extensionIdentifier: id, published: outcome, manifest: outcome.manifest, retired: true)
    }

    /// The channel's manifest when it can stay: signed by `key` (no rotation asked), of this
    /// channel, naming the shard's index (`sha`; nil: any), with more than half of `--expires` left.
    static func unchanged(_ channel: String, sha: String?, feedId: String, key: FeedPrivateKey,
                          options: FeedPublisher.Options) -> FeedManifest? {
        guard options.rotateFrom == nil,
              let bytes = try? FeedFiles.read(channel + "/" + FeedManifest.fileName, maxBytes: FeedJSON.maxBytes),
              let signature = try? FeedFiles.read(channel + "/" + FeedManifest.signatureFileName, maxBytes: 4096),
              let current = try? FeedSignature.verify(manifest: bytes, signature: signature, trusted: [key.publicKey]),
              current.feed == feedId, sha == nil || current.index.sha256 == sha,
              current.expires - options.now > options.expiresAfter / 2 else {
            return nil
        }
        return current
    }
}
