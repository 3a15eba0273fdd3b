import CallDirReader

/// `calldir shard`: one compiled list as several indexes, one per Call Directory extension,
/// and their manifest (`shards.json`, FORMAT.md "Shard manifest"), each shard a normal index
/// written by `IndexComposer`. By kind: blocking in one shard, identification in another. By
/// size: contiguous number intervals under a number of device entries (`ShardPlan`). Shards
/// are published first, the manifest last, each atomically: a manifest never names a shard
/// that is not there.
package enum ShardWriter {
    /// The most shards written: each is an extension target in the app (public blockers ship
    /// up to about 50).
    package static let maxShards = 100

    /// Writes the shards of `index` into `folder` as `shard-N.calldir` and the manifest as
    /// `shards.json`; extension N is `extensionPrefix` + `.N`. Returns the manifest.
    package static func write(_ index: CallDirIndex, rule: ShardManifest.Rule, maxEntries: Int64, extensionPrefix: String,
                              folder: String, temporaryFolder: String) throws -> ShardManifest {
        var parts: [(numbers: NumberRange, blocking: Bool, identification: Bool)]
        switch rule {
        case .kind:
            let all = NumberRange(first: 0, last: Int64.max)
            parts = [(all, true, false), (all, false, true)]
        case .size:
            parts = try ShardPlan.bySize(index, maxEntries: maxEntries).map { ($0.numbers, true, true) }
        }
        guard parts.count <= maxShards else {
            throw CallDirError(.limitExceeded, "\(parts.count) shards of at most \(maxEntries) entries: an app ships one extension "
                               + "per shard, and \(maxShards) is the most this writes; raise --max-entries", path: index.path)
        }
        // The ranges once (identification ranges with their labels decoded), cut for each shard.
        let ranges = (blocked: index.blockedRangeList, identified: try index.checkedIdentifiedRanges())
        var shards: [ShardManifest.Shard] = []
        for (i, part) in parts.enumerated() {
            let name = "shard-\(i + 1).calldir"
            let written = try composer(index, ranges, part.numbers, blocking: part.blocking, identification: part.identification)
                .write(to: folder + "/" + name, temporaryFolder: temporaryFolder)
            shards.append(ShardManifest.Shard(file: name, extensionIdentifier: "\(extensionPrefix).\(i + 1)", numbers: part.numbers,
                                              blocking: part.blocking, identification: part.identification,
                                              deviceEntries: written.metadata.deviceEntries, bytes: written.bytes,
                                              checksum: written.checksum))
        }
        let manifest = ShardManifest(rule: rule, sourceChecksum: index.checksum, sourceEntries: index.metadata.deviceEntries,
                                     shards: shards)
        try AtomicText.publish(String(decoding: manifest.encoded, as: UTF8.self), to: folder + "/shards.json", role: "shard manifest")
        return manifest
    }

    /// The entries of `index` inside `numbers`, of the kinds asked: numbers from a cursor that
    /// seeks to the interval, `ranges` (the index's) cut at its ends.
    private static func composer(_ index: CallDirIndex, _ ranges: (blocked: [NumberRange], identified: [(range: NumberRange, label: String)]),
                                 _ numbers: NumberRange, blocking: Bool, identification: Bool) -> IndexComposer {
        var composer = IndexComposer()
        let check = !index.isVerified
        if blocking {
            composer.blockedNumbers = { emit in
                var cursor = NumberCursor(index.blocked, path: index.path, checkBlocks: check)
                if numbers.first > 0 { try cursor.seek(after: numbers.first - 1) }
                while let n = try cursor.next(), n <= numbers.last { try emit(n) }
            }
            composer.blockedRanges = ranges.blocked.compactMap { clip($0, to: numbers) }
        }
        if identification {
            composer.identifiedNumbers = { emit in
                var cursor = NumberCursor(index.identified, path: index.path, checkBlocks: check)
                if numbers.first > 0 { try cursor.seek(after: numbers.first - 1) }
                while let n = try cursor.next(), n <= numbers.last {
                    var label = try index.label(cursor.labelID)
                    try label.withUTF8 { try emit(n, UnsafeRawBufferPointer($0)) }
                }
            }
            composer.identifiedRanges = ranges.identified.compactMap { entry in
                clip(entry.range, to: numbers).map { ($0, entry.label) }
            }
        }
        return composer
    }

    private static func clip(_ range: NumberRange, to numbers: NumberRange) -> NumberRange? {
        let first = max(range.first, numbers.first), last = min(range.last, numbers.last)
        return first <= last ? NumberRange(first: first, last: last) : nil
    }
}
