import CallDir
import CallDirLookup
import CallDirReader
import CallDirSimulator

/// `calldir simulate --shards DIR/shards.json`: every shard loaded into an extension of its own
/// (one `CallKitSimulator` each: one store, wiped by its own failed request only), as an app
/// with several Call Directory extensions loads them. Prints per extension its requests and
/// entries, and what one failed request costs: that shard's entries sent again, no other's.
/// With `--from OLD/shards.json` each extension first holds its old shard and is updated: an
/// unchanged shard costs no request. `--off ID`: switched off in Settings, never asked.
/// `--reloads-per-launch N`: the launches an app needs when it may run N reloads per launch.
struct ShardedRun {
    struct Extension {
        let shard: ShardManifest.Shard
        let off: Bool
        /// Requests of the load (or of the update, with `--from`).
        let requests: Int
        /// Entries sent by those requests (adds and removes).
        let sent: Int64
        let onDevice: Int64
        let seconds: Double
        let failure: CallKitSimulator.Failure?
    }

    let manifestPath: String
    let manifest: ShardManifest
    let fromPath: String?
    let extensions: [Extension]
    let reloadsPerLaunch: Int?

    init(manifestPath: String, from fromPath: String?, off: Set<String>, reloadsPerLaunch: Int?, requestSize: Int) throws {
        let set = try ShardSet(manifestPath: manifestPath, verify: true)
        let old = try fromPath.map { try ShardSet(manifestPath: $0, verify: true) }
        let oldShards = Dictionary(zip(old?.manifest.shards.map(\.extensionIdentifier) ?? [], old?.indexes ?? []), uniquingKeysWith: { a, _ in a })
        self.manifestPath = manifestPath
        self.fromPath = fromPath
        self.reloadsPerLaunch = reloadsPerLaunch
        manifest = set.manifest
        extensions = try zip(set.manifest.shards, set.indexes).map { shard, index in
            let simulator = CallKitSimulator()
            guard !off.contains(shard.extensionIdentifier) else {
                return Extension(shard: shard, off: true, requests: 0, sent: 0, onDevice: 0, seconds: 0, failure: nil)
            }
            var start: LoadCheckpoint?
            var previous: CallDirIndex?
            if let before = oldShards[shard.extensionIdentifier] {
                start = try SimulateCommand.drive(DeviceLoader(index: before, requestSize: requestSize), simulator, from: nil).steps.last?.checkpoint
                previous = before
            }
            let already = simulator.history.count
            let (steps, seconds) = previous?.checksum == index.checksum ? ([], 0)
                : try SimulateCommand.drive(DeviceLoader(index: index, previous: previous, requestSize: requestSize), simulator, from: start)
            let sent = simulator.history.dropFirst(already).reduce(Int64(0)) { $0 + Int64($1.adds + $1.removes) }
            return Extension(shard: shard, off: false, requests: steps.count, sent: sent, onDevice: simulator.entryCount,
                             seconds: seconds, failure: simulator.history.last?.failure)
        }
    }

    /// Why a device would not hold the list, or nil.
    var problem: String? {
        if let failed = extensions.first(where: { $0.failure != nil }) {
            return "\(failed.shard.extensionIdentifier) fails: \(failed.failure!)"
        }
        let on = extensions.filter { !$0.off }
        let held = on.map(\.onDevice).reduce(0, +), wanted = on.map(\.shard.deviceEntries).reduce(0, +)
        return held == wanted ? nil : "the extensions hold \(held) entries, their shards \(wanted)"
    }

    var requests: Int { extensions.map(\.requests).reduce(0, +) }

    /// Launches to finish at `reloadsPerLaunch` reloads each (the extensions one after another).
    var launches: Int? { reloadsPerLaunch.map { (requests + $0 - 1) / $0 } }

    var text: String {
        var out = ""
        for e in extensions {
            out += "\(e.shard.extensionIdentifier)  \(e.shard.file)  \(e.shard.kindsText)  "
            if e.off {
                out += "off in Settings: not asked\n"
                continue
            }
            out += "\(counted(e.onDevice, "entry", "entries")) in \(counted(e.requests, "request"))"
                + (fromPath == nil ? "" : e.requests == 0 ? " (unchanged)" : " (\(counted(e.sent, "entry", "entries")) sent)")
                + "  feed \(formatFixed(e.seconds, 2)) s" + (e.failure.map { "  FAILED: \($0)" } ?? "") + "\n"
        }
        let on = extensions.filter { !$0.off }
        let largest = on.map(\.onDevice).max() ?? 0
        out += "\(counted(on.count, "extension")) hold \(counted(on.map(\.onDevice).reduce(0, +), "entry", "entries")) "
            + "of \(manifestPath) (the list: \(counted(manifest.sourceEntries, "entry", "entries"))) in \(counted(requests, "request"))"
            + (fromPath.map { " from \($0)" } ?? "") + "; a failed request wipes one "
            + "extension's store: at most \(counted(largest, "entry", "entries")) to send again\n"
        if let launches, let reloadsPerLaunch {
            out += "at \(counted(reloadsPerLaunch, "reload")) per launch: \(counted(launches, "launch", "launches")) to finish\n"
        }
        return out
    }

    var json: JSONValue {
        .object([("manifest", .string(manifestPath)), ("from", fromPath.map { .string($0) } ?? .null), ("ok", .bool(problem == nil)),
                 ("problem", problem.map { .string($0) } ?? .null), ("listEntries", .int(manifest.sourceEntries)),
                 ("requests", .int(Int64(requests))), ("launches", launches.map { .int(Int64($0)) } ?? .null),
                 ("extensions", .array(extensions.map { e in
                     .object([("extension", .string(e.shard.extensionIdentifier)), ("file", .string(e.shard.file)), ("off", .bool(e.off)),
                              ("requests", .int(Int64(e.requests))), ("entriesSent", .int(e.sent)), ("entriesOnDevice", .int(e.onDevice)),
                              ("seconds", .double(e.seconds)), ("failure", e.failure.map { Run.json($0) } ?? .null)])
                 }))])
    }
}
