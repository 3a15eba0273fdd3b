import CallDirFeed
import CallDirReader
import CallDirWriter

/// `calldir update --shards DIR/shards.json`: a server's folder of shards (what `calldir shard`
/// writes, what `lookup --shards` and `simulate --shards` read) kept up to date from a sharded
/// feed (FEED-PROTOCOL.md, "Sharded feeds"). The feed's `shards.json` names the shards; each is
/// brought up to date by `FeedUpdater` from its extension's channel, pinned to the extension's
/// identifier (a delta when it can; a channel that did not change costs its manifest alone).
/// A failed channel does not stop the others. Once every channel is up to date, the feed's
/// `shards.json` is verified (its signature by the keys the channels reached, and each shard's
/// size, checksum and entries against the index installed) and only then replaces DIR's: the
/// manifest last, as `calldir shard` writes it. Until then DIR's own is kept.
package struct FeedShardFolderUpdater: Sendable {
    /// The folder's shard manifest (`DIR/shards.json`); the shards are beside it.
    package var shardsPath: String
    package var trusted: [FeedPublicKey]
    /// `--root-version`: the key rotation version `trusted` belongs to.
    package var trustedRootVersion: Int64 = 1
    package var now: @Sendable () -> Int64 = { FeedText.now() }
    package var progress: (@Sendable (Int64, Int64) -> Void)?

    package init(shardsPath: String, trusted: [FeedPublicKey]) {
        self.shardsPath = shardsPath
        self.trusted = trusted
    }

    /// One shard's channel.
    package struct Channel: Sendable {
        package var extensionIdentifier: String
        /// The shard's index in the folder.
        package var index: String
        package var result: Swift.Result<FeedUpdater.Result, any Error>
    }

    package struct Report: Sendable {
        package var channels: [Channel]
        /// Whether DIR/shards.json was replaced (false: it was the feed's already); a failure
        /// when it was refused; nil when not tried (a channel failed).
        package var shardManifest: Swift.Result<Bool, any Error>?
    }

    var folder: String { AtomicPublish.folder(of: shardsPath) }

    package func update(transport: some FeedTransport) async throws -> Report {
        let name = transport.location(FeedChannel.shardManifestName)
        guard let fetched = try await transport.fetch(FeedChannel.shardManifestName, maxBytes: FeedJSON.maxBytes, ifNoneMatch: nil),
              let signature = try await transport.fetch(FeedChannel.shardManifestSignatureName, maxBytes: 4096, ifNoneMatch: nil) else {
            throw FeedError(.transport, "the server answered 'not modified' to an unconditional request", path: name)
        }
        // Read before it is verified (the keys to verify it with are those the channels reach),
        // so only to know the channels: each is verified on its own, and a shard's file must be
        // a plain `*.calldir` name in DIR.
        let shards = try Self.parse(fetched.bytes, name: name)
        try FeedFiles.makeFolder(folder)
        var channels: [Channel] = []
        for shard in shards.shards {
            var updater = FeedUpdater(indexPath: folder + "/" + shard.file, trusted: trusted)
            updater.pinnedFeed = shard.extensionIdentifier
            updater.trustedRootVersion = trustedRootVersion
            updater.now = now
            updater.progress = progress
            let result: Swift.Result<FeedUpdater.Result, any Error>
            do {
                result = .success(try await updater.update(transport: try FeedChannelTransport(transport, extensionIdentifier: shard.extensionIdentifier)))
            } catch {
                result = .failure(error)
            }
            channels.append(Channel(extensionIdentifier: shard.extensionIdentifier, index: updater.indexPath, result: result))
        }
        guard channels.allSatisfy({ if case .success = $0.result { return true } else { return false } }) else {
            return Report(channels: channels, shardManifest: nil)
        }
        let written = Swift.Result { try adopt(shards, bytes: fetched.bytes, signature: signature.bytes, name: name) }
        return Report(channels: channels, shardManifest: written)
    }

    /// The feed's shards.json, checked as `ShardManifest` checks it, each file a plain `*.calldir` name, each once.
    package static func parse(_ bytes: [UInt8], name: String) throws -> ShardManifest {
        let shards: ShardManifest
        do { shards = try bytes.withUnsafeBytes { try ShardManifest(bytes: $0, path: name) } } catch let error as CallDirError {
            throw FeedError(.manifest, error.message, path: name)
        }
        for shard in shards.shards where !shard.file.hasSuffix(".calldir") || shard.file.hasPrefix(".") {
            throw FeedError(.manifest, "shard file \"\(shard.file)\" is not a plain name ending in .calldir", path: name)
        }
        guard Set(shards.shards.map(\.file)).count == shards.shards.count else {
            throw FeedError(.manifest, "two shards name one file", path: name)
        }
        return shards
    }

    /// Verifies the feed's shard manifest (signature; each shard the index installed) and
    /// writes it over DIR's; returns whether it changed.
    private func adopt(_ shards: ShardManifest, bytes: [UInt8], signature: [UInt8], name: String) throws -> Bool {
        let roots = try shards.shards.compactMap { try FeedUpdater(indexPath: folder + "/" + $0.file, trusted: trusted).readState()?.root }
        let keys = roots.max { $0.version < $1.version }?.keys ?? trusted
        _ = try FeedSignature.verifiedKeys(signature: signature, over: bytes, trusted: keys,
                                           signatureName: name + ".sig")
        for shard in shards.shards {
            let path = folder + "/" + shard.file
            let index = try CallDirIndex(path: path, verify: false)
            guard shard.names(index) else {
                throw FeedError(.digest, "the feed's shards.json names another shard for \(shard.extensionIdentifier) than its channel's "
                                + "index (a publication under way?): \(shardsPath) kept; run the update again", path: path)
            }
        }
        guard try FeedFiles.read(shardsPath, maxBytes: FeedJSON.maxBytes) != bytes else { return false }
        try FeedFiles.publish(bytes, to: shardsPath, role: "the shard manifest")
        return true
    }
}
