import CallDir
import CallDirLookup
import CallDirReader
import CallDirSimulator

/// `calldir simulate --shards DIR/shards.json`: every shard loaded into an extension of its own
/// (one `CallKitSimulator` each: one store, wiped by its own failed request only), as an app
/// with several Call Directory extensions loads them. Prints per extension its requests and
/// entries, and what one failed request costs: that shard's entries sent again, no other's.
struct ShardedRun {
    struct Extension {
        let shard: ShardManifest.Shard
        let requests: Int
        let onDevice: Int64
        let failure: CallKitSimulator.Failure?
    }

    let manifestPath: String
    let manifest: ShardManifest
    let extensions: [Extension]

    init(manifestPath: String, requestSize: Int) throws {
        let set = try ShardSet(manifestPath: manifestPath, verify: true)
        self.manifestPath = manifestPath
        manifest = set.manifest
        extensions = try zip(set.manifest.shards, set.indexes).map { shard, index in
            let simulator = CallKitSimulator()
            let (steps, _) = try SimulateCommand.drive(DeviceLoader(index: index, requestSize: requestSize), simulator, from: nil)
            return Extension(shard: shard, requests: steps.count, onDevice: simulator.entryCount,
                             failure: simulator.history.last?.failure)
        }
    }

    /// Why a device would not hold the list, or nil.
    var problem: String? {
        if let failed = extensions.first(where: { $0.failure != nil }) {
            return "\(failed.shard.extensionIdentifier) fails: \(failed.failure!)"
        }
        let held = extensions.map(\.onDevice).reduce(0, +)
        return held == manifest.sourceEntries ? nil
            : "the extensions hold \(held) entries, the list \(manifest.sourceEntries)"
    }

    var text: String {
        var out = ""
        for e in extensions {
            let kinds = [e.shard.blocking ? "blocking" : nil, e.shard.identification ? "identification" : nil].compactMap { $0 }
            out += "\(e.shard.extensionIdentifier)  \(e.shard.file)  \(kinds.joined(separator: "+"))  "
                + "\(counted(e.onDevice, "entry", "entries")) in \(counted(e.requests, "request"))"
                + (e.failure.map { "  FAILED: \($0)" } ?? "") + "\n"
        }
        let largest = extensions.map(\.onDevice).max() ?? 0
        out += "\(counted(extensions.count, "extension")) hold \(counted(extensions.map(\.onDevice).reduce(0, +), "entry", "entries")) "
            + "of \(manifestPath) (the list: \(counted(manifest.sourceEntries, "entry", "entries"))); a failed request wipes one "
            + "extension's store: at most \(counted(largest, "entry", "entries")) to send again\n"
        return out
    }

    var json: JSONValue {
        .object([("manifest", .string(manifestPath)), ("ok", .bool(problem == nil)), ("problem", problem.map { .string($0) } ?? .null),
                 ("listEntries", .int(manifest.sourceEntries)),
                 ("extensions", .array(extensions.map { e in
                     .object([("extension", .string(e.shard.extensionIdentifier)), ("file", .string(e.shard.file)),
                              ("requests", .int(Int64(e.requests))), ("entriesOnDevice", .int(e.onDevice)),
                              ("failure", e.failure.map { Run.json($0) } ?? .null)])
                 }))])
    }
}
