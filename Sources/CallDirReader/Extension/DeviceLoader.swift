/// Loads an index into a Call Directory extension, one CallKit request at a time, with at
/// most `requestSize` entries per request (both kinds counted together).
///
/// Per request it feeds the blocking entries, then the identification entries, each as one
/// ascending stream (exact numbers and expanded ranges, each number once; see
/// `DeviceEntryStream`), continuing from a checkpoint:
/// - no checkpoint, or one for another index: a complete request from the first entry
///   (`isIncremental` is not read, so CallKit replaces whatever the device held);
/// - a checkpoint for this index: `isIncremental` is read; if true the request continues after
///   the checkpoint's last numbers (a finished load adds nothing), if false it is complete and
///   starts over. A number the device already holds is never added again.
///
/// Given `previous` (the index the device may hold completely), a finished load of it read
/// with `isIncremental` true starts an update instead: only the changes to `index`, span by
/// span, removals before additions (see `DeviceLoader+Update.swift`), unless the changes
/// outnumber `index`'s entries. Any other checkpoint follows the rules above.
///
/// With the user's layer (`overlay`), every entry fed is list ⊕ overlay, and the checkpoint
/// names the overlay (`overlayDigest`): a load is resumed only with the same one. Given
/// `held` (the overlay the device may hold), a finished load of `index` ⊕ `held` starts an
/// update that sends only the change of the layer; a finished load of `previous` ⊕ `overlay`
/// an update of the list with the overlay applied.
///
/// The extension writes `LoadCheckpoint.underWayRecord` as *pending* before it calls this,
/// and overwrites it with the returned `LoadStep.checkpoint` after (`CallDirectoryExtensionRequest`
/// does both); the app commits it only when `reloadExtension` reports success, and discards
/// both on failure (CallKit then deletes every entry). docs/CALLKIT.md has the protocol.
public struct DeviceLoader {
    /// A safer default than CallKit's cap of 1,999,999: half of it, so a request takes about
    /// 4.5 s on a device (~220k entries/s measured) and a miscount can never reach the cap.
    public static let defaultRequestSize = 1_000_000

    /// The index to load (the one the device is to hold).
    public let index: CallDirIndex
    /// The index an update starts from (the one the device held), or nil: complete loads only.
    public let previous: CallDirIndex?
    /// Entries one request feeds at most.
    public let requestSize: Int
    /// The user's layer and contacts, applied to every entry fed (nil: the list as it is).
    public let overlay: PersonalOverlay?
    /// The overlay the device may hold (the committed checkpoint's): the base of a change of
    /// the layer. Nil: a change of the layer is a complete load.
    public let held: PersonalOverlay?
    /// `overlay`'s digest (0: none), as checkpoints name it.
    public let overlayDigest: UInt64
    /// Where list ⊕ `held` and list ⊕ `overlay` can differ (computed once: a change's streams
    /// are made three times per request).
    @usableFromInline
    let layerSpans: [NumberRange]

    /// Throws `.usage` when `requestSize` is below 1. Sizes above
    /// `CallKitLimits.maxEntriesPerRequest` are accepted (`CallKitSimulator` shows why not).
    /// `previous` enables updates from that index to `index` (removals and additions both
    /// count toward `requestSize`). `overlay`: the user's layer merged with the list
    /// (`PersonalMergeStream`; an empty one is none); `held`: the overlay the device may hold,
    /// which enables updates of the layer alone.
    public init(index: CallDirIndex, previous: CallDirIndex? = nil, requestSize: Int = DeviceLoader.defaultRequestSize,
                overlay: PersonalOverlay? = nil, held: PersonalOverlay? = nil) throws {
        guard requestSize >= 1 else {
            throw CallDirError(.usage, "request size \(requestSize): give at least 1 (CallKit takes at most 1,999,999 entries per request)")
        }
        self.index = index
        self.previous = previous
        self.requestSize = requestSize
        self.overlay = overlay?.isEmpty == false ? overlay : nil
        self.held = held
        overlayDigest = overlay?.digest ?? 0
        layerSpans = held.map { (overlay ?? PersonalOverlay(layer: PersonalLayer(), now: 0)).differingSpans(from: $0) } ?? []
    }

    /// Feeds one request into `context`, resuming from the committed checkpoint (nil: none, or
    /// see `LoadCheckpoint.resumePoint`). Throws `CallDirError` when the index is damaged; the
    /// extension must then fail the request (`cancelRequest(withError:)`).
    @inlinable
    public func loadRequest<C: CallDirectoryContext>(into context: C, resumingFrom checkpoint: LoadCheckpoint?) throws -> LoadStep {
        var next = LoadCheckpoint(index: index, overlay: overlayDigest)
        var kind = RequestKind.complete
        if let checkpoint, let update = updateStart(checkpoint) {
            // A fresh update that would send more changes than NEW's entries: a complete load.
            let entries = index.metadata.deviceEntries
            let costly = try checkpoint.update == nil && changeCount(from: update.base, upTo: entries) > entries
            if !costly, context.isIncremental { return try updateRequest(into: context, from: update.base, resumingFrom: update.start) }
        } else if let checkpoint, checkpoint.update == nil, checkpoint.names(index, overlay: overlayDigest), context.isIncremental {
            kind = .incremental
            next = checkpoint
        }
        var step = LoadStep(kind: kind, checkpoint: next)
        var budget = requestSize
        if !next.blockingFinished {
            let fed = try feedKind(.blocking, after: next.lastBlockingNumber, into: context, limit: budget)
            step.blockingEntries = fed.entries
            budget -= fed.entries
            next.lastBlockingNumber = fed.last
            next.blockingFinished = fed.finished
        }
        if next.blockingFinished, !next.identificationFinished {
            let fed = try feedKind(.identification, after: next.lastIdentificationNumber, into: context, limit: budget)
            step.identificationEntries = fed.entries
            next.lastIdentificationNumber = fed.last
            next.identificationFinished = fed.finished
        }
        next.countFed(step.blockingEntries + step.identificationEntries)
        step.checkpoint = next
        return step
    }

    /// Feeds up to `limit` entries of `kind` after `number`, the overlay applied when there is
    /// one; returns how many, the last number fed and whether the kind is finished.
    @inlinable
    func feedKind<C: CallDirectoryContext>(_ kind: DeviceEntryKind, after number: Int64, into context: C,
                                           limit: Int) throws -> (entries: Int, last: Int64, finished: Bool) {
        let stream = try makeStream(kind, after: number)
        guard let overlay else {
            let entries = try Self.feed(stream, into: context, limit: limit)
            return (entries, stream.lastNumber, try stream.atEnd())
        }
        let merged = PersonalMergeStream(list: stream, overlay: overlay)
        try merged.seek(after: number)
        let entries = try Self.feed(merged, into: context, limit: limit)
        return (entries, merged.lastNumber, try merged.atEnd())
    }

    @usableFromInline
    func makeStream(_ kind: DeviceEntryKind, after number: Int64) throws -> DeviceEntryStream {
        let stream = DeviceEntryStream(index: index, kind: kind)
        try stream.seek(after: number)
        return stream
    }

    /// Hands up to `limit` entries of `stream` to `context`. Inlined into the caller's module,
    /// so the calls into a concrete context are direct: a few ns per entry.
    @inlinable
    static func feed<S: DeviceFeedSource, C: CallDirectoryContext>(_ stream: S, into context: C, limit: Int) throws -> Int {
        var fed = 0
        let numbers = stream.numbers
        if stream.kind == .blocking {
            while fed < limit {
                let n = try stream.fill(max: limit - fed)
                if n == 0 { break }
                for i in 0..<n { context.addBlockingEntry(withNextSequentialPhoneNumber: numbers[i]) }
                fed += n
            }
            return fed
        }
        let ids = stream.labelIDs
        var lastID = UInt32.max
        var label = ""
        while fed < limit {
            let n = try stream.fill(max: limit - fed)
            if n == 0 { break }
            for i in 0..<n {
                if ids[i] != lastID {
                    label = try stream.label(ids[i])
                    lastID = ids[i]
                }
                context.addIdentificationEntry(withNextSequentialPhoneNumber: numbers[i], label: label)
            }
            fed += n
        }
        return fed
    }
}

/// What one request fed, and the checkpoint to commit once CallKit reports it succeeded.
public struct LoadStep: Equatable, Sendable {
    /// Whether the request replaced every entry or sent changes only.
    public var kind: RequestKind
    /// Entries added, per kind.
    public var blockingEntries = 0
    /// Identification entries added.
    public var identificationEntries = 0
    /// Entries removed, per kind (updates only).
    public var blockingRemovals = 0
    /// Identification entries removed (updates only).
    public var identificationRemovals = 0
    /// Where the device stands once CallKit accepts this request's entries.
    public var checkpoint: LoadCheckpoint

    @usableFromInline
    init(kind: RequestKind, checkpoint: LoadCheckpoint) {
        self.kind = kind
        self.checkpoint = checkpoint
    }

    /// Entries fed by this request, added or removed, both kinds: what `requestSize` bounds.
    public var entries: Int { blockingEntries + identificationEntries + removals }
    /// Entries removed by this request, both kinds.
    public var removals: Int { blockingRemovals + identificationRemovals }
    /// True when, once this request succeeds, the device holds the whole index.
    public var isFinished: Bool { checkpoint.isFinished }
}
