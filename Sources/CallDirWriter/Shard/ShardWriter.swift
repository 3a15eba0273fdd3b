import CallDirNumbers
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
        case .category:
            throw CallDirError(.usage, "shards by category come from one index per category (write(categories:...))", path: index.path)
        }
        guard parts.count <= maxShards else {
            throw CallDirError(.limitExceeded, "\(parts.count) shards of at most \(maxEntries) entries: an app ships one extension "
                               + "per shard, and \(maxShards) is the most this writes; raise --max-entries", path: index.path)
        }
        // The ranges once (identification ranges with their labels decoded), cut for each shard.
        let ranges = (blocked: index.blockedRangeList, identified: try index.checkedIdentifiedRanges())
        var shards: [ShardManifest.Shard] = []
        for (i, part) in parts.enumerated() {
            shards.append(try writeShard(composer(index, ranges, part.numbers, blocking: part.blocking, identification: part.identification),
                                         name: "\(i + 1)", numbers: part.numbers, blocking: part.blocking, identification: part.identification,
                                         extensionPrefix: extensionPrefix, folder: folder, temporaryFolder: temporaryFolder))
        }
        return try publish(ShardManifest(rule: rule, sourceChecksum: index.checksum, sourceEntries: index.metadata.deviceEntries,
                                         shards: shards), folder: folder)
    }

    /// Writes one shard per category, each the whole of its own index (`calldir compile` of
    /// that category's inputs), as `shard-NAME.calldir` for extension `extensionPrefix.NAME`,
    /// and the manifest (rule `category`; its source: FORMAT.md). Categories may share numbers:
    /// each extension is a switch of its own in Settings.
    package static func write(categories: [(name: String, index: CallDirIndex)], extensionPrefix: String,
                              folder: String, temporaryFolder: String) throws -> ShardManifest {
        guard !categories.isEmpty, categories.count <= maxShards else {
            throw CallDirError(.usage, "\(categories.count) categories: give 1 to \(maxShards)", path: folder)
        }
        let every = NumberRange(first: 0, last: Int64.max)
        var shards: [ShardManifest.Shard] = []
        for (name, index) in categories {
            let ranges = (blocked: index.blockedRangeList, identified: try index.checkedIdentifiedRanges())
            shards.append(try writeShard(composer(index, ranges, every, blocking: true, identification: true), name: name, numbers: every,
                                         blocking: true, identification: true, extensionPrefix: extensionPrefix, folder: folder,
                                         temporaryFolder: temporaryFolder))
        }
        return try publish(ShardManifest(rule: .category, sourceChecksum: ShardManifest.categorySource(shards),
                                         sourceEntries: shards.reduce(0) { $0 + $1.deviceEntries }, shards: shards), folder: folder)
    }

    private static func writeShard(_ composer: IndexComposer, name: String, numbers: NumberRange, blocking: Bool, identification: Bool,
                                   extensionPrefix: String, folder: String, temporaryFolder: String) throws -> ShardManifest.Shard {
        let file = "shard-\(name).calldir"
        let written = try composer.write(to: folder + "/" + file, temporaryFolder: temporaryFolder)
        return ShardManifest.Shard(file: file, extensionIdentifier: "\(extensionPrefix).\(name)", numbers: numbers, blocking: blocking,
                                   identification: identification, deviceEntries: written.metadata.deviceEntries, bytes: written.bytes,
                                   checksum: written.checksum)
    }

    /// The manifest last, atomically: it never names a shard that is not there.
    private static func publish(_ manifest: ShardManifest, folder: String) throws -> ShardManifest {
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
