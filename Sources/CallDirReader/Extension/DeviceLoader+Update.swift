/// Updates: the device holds index OLD (`previous`) completely and the app ships NEW (`index`).
/// Instead of a complete load of NEW, incremental requests send only the changes. Each request
/// covers the next span of numbers (both kinds): the span's removals (blocking, then
/// identification), then its additions (blocking, then identification), each ascending, at
/// most `requestSize` changes, so a relabelled number's removal and re-addition always land
/// in the same request (the phone never shows that caller unlabelled) and each request
/// switches from removing to adding once (CallKit flushes synchronously at each switch). A
/// span always holds every change of its last number: a request may exceed a `requestSize`
/// below 3 by that much.
///
/// An update that would send more changes than NEW has device entries is not started: a
/// complete load of NEW costs less (the first request then does not read `isIncremental`).
///
/// The checkpoint rules do not change: the app commits a checkpoint only after success, and
/// after any failure (the store is then empty) the next request is a complete load of NEW.
/// The finished update's checkpoint is a finished load of NEW, so NEW -> NEWER works alike.
///
/// With the user's layer (`overlay`), the device holds list ⊕ overlay, and two updates exist:
/// - the list changed, the layer did not: the list's changes minus those the overlay hides
///   (`ChangeStream(list:overlay:)`: none under an exception, no blocking change under the
///   user's block, no identification change under the user's label);
/// - the layer changed (an edit, a contact, an expiry), the list did not: the changes between
///   the two merged streams, only where a rule of either overlay lies (`PersonalDeltaStream`).
/// Both go span by span as above, so a change larger than a request is split and resumed. A
/// change of both at once is a complete load.
extension DeviceLoader {
    /// What an update starts from: the list the device held (same overlay), or the overlay
    /// the device held (same list).
    @usableFromInline
    enum UpdateBase {
        case list(CallDirIndex)
        case layer(PersonalOverlay)
    }

    /// Where an update resumes and from what, or nil when `checkpoint` does not allow one: it
    /// must be a finished load of `previous` ⊕ this overlay, or of this index ⊕ the held
    /// overlay, or an update from one of them to this index ⊕ overlay under way. A change of
    /// both the list and the layer is not an update (a complete load).
    @usableFromInline
    func updateStart(_ checkpoint: LoadCheckpoint) -> (start: LoadCheckpoint, base: UpdateBase)? {
        let digest = overlayDigest
        let fromList = previous.flatMap { $0.checksum != index.checksum || $0.file.count != index.file.count ? $0 : nil }
        let fromLayer = held.flatMap { $0.digest != digest ? $0 : nil }
        if let update = checkpoint.update {
            guard checkpoint.names(index, overlay: digest) else { return nil }
            if let fromList, update.startsFrom(fromList, overlay: digest) { return (checkpoint, .list(fromList)) }
            if let fromLayer, update.startsFrom(index, overlay: fromLayer.digest) { return (checkpoint, .layer(fromLayer)) }
            return nil
        }
        guard checkpoint.isFinished else { return nil }
        var start = LoadCheckpoint(index: index, overlay: digest)
        if let fromList, checkpoint.names(fromList, overlay: digest) {
            start.update = .init(from: fromList, overlay: digest)
            return (start, .list(fromList))
        }
        if let fromLayer, checkpoint.names(index, overlay: fromLayer.digest) {
            start.update = .init(from: index, overlay: fromLayer.digest)
            return (start, .layer(fromLayer))
        }
        return nil
    }

    /// The four change streams of an update, in feeding order: removals blocking and
    /// identification, then additions blocking and identification.
    @usableFromInline
    func changeStreams(_ base: UpdateBase) -> [ChangeStream] {
        [(DeviceEntryKind.blocking, true), (.identification, true), (.blocking, false), (.identification, false)].map { kind, removals in
            switch base {
            case .list(let old): return ChangeStream(list: DeviceDeltaStream(old: old, new: index, kind: kind, removals: removals), overlay: overlay)
            case .layer(let old): return ChangeStream(layer: PersonalDeltaStream(index: index, old: old, new: overlay, kind: kind, removals: removals,
                                                                                  spans: layerSpans))
            }
        }
    }

    /// The changes (removals plus additions, both kinds) of the update from `base`, counted
    /// up to just past `limit`: a walk of the differences only.
    @usableFromInline
    func changeCount(from base: UpdateBase, upTo limit: Int64) throws -> Int64 {
        var total: Int64 = 0
        for stream in changeStreams(base) {
            try stream.seek(after: 0)
            while total <= limit {
                let n = try stream.fill(max: DeviceEntryStream.chunk)
                if n == 0 { break }
                total += Int64(n)
            }
        }
        return total
    }

    /// The next span after `done`: how many changes of each stream it holds, its last number,
    /// and whether it reaches the end of every stream. A k-way walk of the four streams.
    @usableFromInline
    func planSpan(_ streams: [ChangeStream], after done: Int64, budget: Int) throws -> (counts: [Int], end: Int64, last: Bool) {
        for stream in streams { try stream.seek(after: done) }
        var have = [0, 0, 0, 0]
        var position = [0, 0, 0, 0]
        var counts = [0, 0, 0, 0]
        var used = 0
        var end = done
        while true {
            var low = Int64.max
            for s in 0..<4 {
                if position[s] == have[s] {
                    have[s] = try streams[s].fill(max: DeviceEntryStream.chunk)
                    position[s] = 0
                }
                if position[s] < have[s] { low = min(low, streams[s].numbers[position[s]]) }
            }
            guard low != .max else { return (counts, end, true) }
            let here = (0..<4).filter { position[$0] < have[$0] && streams[$0].numbers[position[$0]] == low }
            if used > 0, used + here.count > budget { return (counts, end, false) }
            for s in here {
                counts[s] += 1
                position[s] += 1
            }
            used += here.count
            end = low
        }
    }

    /// Feeds one incremental request of the update that `checkpoint` describes: the next span.
    @inlinable
    func updateRequest<C: CallDirectoryContext>(into context: C, from base: UpdateBase,
                                                resumingFrom checkpoint: LoadCheckpoint) throws -> LoadStep {
        var next = checkpoint
        var step = LoadStep(kind: .incremental, checkpoint: next)
        let done = checkpoint.updateDoneThrough
        let plan = try planSpan(changeStreams(base), after: done, budget: requestSize)
        for (s, stream) in changeStreams(base).enumerated() where plan.counts[s] > 0 {
            try stream.seek(after: done)
            let fed = s < 2 ? try Self.feedRemovals(stream, into: context, limit: plan.counts[s])
                            : try Self.feed(stream, into: context, limit: plan.counts[s])
            switch s {
            case 0: step.blockingRemovals = fed
            case 1: step.identificationRemovals = fed
            case 2: step.blockingEntries = fed
            default: step.identificationEntries = fed
            }
        }
        next.countFed(step.entries)
        if plan.last {
            // Done: the device holds NEW ⊕ overlay, which is what a finished load of it says
            // (its entry count is the list's: for progress only).
            next = LoadCheckpoint(index: index, overlay: overlayDigest)
            next.blockingFinished = true
            next.identificationFinished = true
            next.entriesLoaded = index.metadata.deviceEntries
        } else {
            next.lastBlockingNumber = plan.end
            next.lastIdentificationNumber = plan.end
        }
        step.checkpoint = next
        return step
    }

    /// Removes up to `limit` entries of `stream` (a removals stream) from `context`.
    @inlinable
    static func feedRemovals<C: CallDirectoryContext>(_ stream: ChangeStream, into context: C, limit: Int) throws -> Int {
        var fed = 0
        let numbers = stream.numbers
        let blocking = stream.kind == .blocking
        while fed < limit {
            let n = try stream.fill(max: limit - fed)
            if n == 0 { break }
            if blocking {
                for i in 0..<n { context.removeBlockingEntry(withPhoneNumber: numbers[i]) }
            } else {
                for i in 0..<n { context.removeIdentificationEntry(withPhoneNumber: numbers[i]) }
            }
            fed += n
        }
        return fed
    }
}

/// What `DeviceLoader.feed` reads entries from: an index's entries, or an update's additions.
@usableFromInline
protocol DeviceFeedSource: AnyObject {
    var kind: DeviceEntryKind { get }
    var numbers: UnsafeMutablePointer<Int64> { get }
    var labelIDs: UnsafeMutablePointer<UInt32> { get }
    func fill(max limit: Int) throws -> Int
    func label(_ id: UInt32) throws -> String
}

extension DeviceEntryStream: DeviceFeedSource {}
extension DeviceDeltaStream: DeviceFeedSource {}

