/// The shards a manifest names, opened, answering as the list they were cut from:
/// `calldir lookup --shards`, `calldir publish --shards`, and an app that reads its shards.
/// Each shard must be the file the manifest describes (`ShardManifest.Shard.names`: size,
/// checksum and entries), or opening fails naming it.
public final class ShardSet: Sendable {
    /// The manifest, checked.
    public let manifest: ShardManifest
    /// Each shard's index, in the manifest's order.
    public let indexes: [CallDirIndex]

    /// Opens `shards.json` at `path` and every shard beside it.
    public init(manifestPath path: String, verify: Bool = false) throws {
        manifest = try ShardManifest(path: path)
        let folder = AtomicPublish.folder(of: path)
        indexes = try manifest.shards.map { shard in
            let file = folder + "/" + shard.file
            let index = try CallDirIndex(path: file, verify: verify)
            guard shard.names(index) else {
                throw CallDirError(.corruptIndex, "shard \(shard.file) is not the one \(path) names (checksum \(hex(index.checksum)), "
                                   + "\(index.file.bytes.count) bytes; the manifest says \(hex(shard.checksum)), \(shard.bytes) bytes): "
                                   + "shard the list again", path: file)
            }
            return index
        }
    }

    /// The answer of the list the shards were cut from: blocking from the shards that block,
    /// the label from those that identify, for the shards whose interval holds `number`.
    /// (A range's bounds are the shard's part of it.) Categories may share a number: it is
    /// blocked if one blocks it, and shows the label of the first, in the manifest's order.
    public func lookup(_ number: Int64) throws -> LookupResult {
        var answer = LookupResult(number: number)
        for (shard, index) in zip(manifest.shards, indexes) where shard.numbers.first <= number && number <= shard.numbers.last {
            let found = try index.lookup(number)
            if shard.blocking, found.blocked != nil, answer.blocked == nil {
                answer.blocked = found.blocked
                answer.blockedRange = found.blockedRange
            }
            if shard.identification, found.label != nil, answer.label == nil {
                answer.label = found.label
                answer.labelMatch = found.labelMatch
                answer.labelRange = found.labelRange
            }
        }
        return answer
    }
}
