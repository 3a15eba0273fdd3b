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
extension DeviceLoader {
    /// Where an update resumes, or nil when `checkpoint` does not allow one: it must be a
    /// finished load of `previous`, or an update from `previous` to `index` under way.
    @usableFromInline
    func updateStart(_ checkpoint: LoadCheckpoint, previous: CallDirIndex) -> LoadCheckpoint? {
        guard previous.checksum != index.checksum || previous.file.count != index.file.count else { return nil }
        if let update = checkpoint.update {
            return checkpoint.names(index) && update.startsFrom(previous) ? checkpoint : nil
        }
        guard checkpoint.isFinished, checkpoint.names(previous) else { return nil }
        var start = LoadCheckpoint(index: index)
        start.update = .init(from: previous)
        return start
    }

    /// The changes (removals plus additions, both kinds) from `previous` to `index`, counted up
    /// to just past `limit`: a walk of the differences, stretches both hold skipped in O(1).
    @usableFromInline
    func changeCount(from previous: CallDirIndex, upTo limit: Int64) throws -> Int64 {
        var total: Int64 = 0
        for stream in Self.deltaStreams(previous, index) {
            try stream.seek(after: 0)
            while total <= limit {
                let n = try stream.fill(max: DeviceEntryStream.chunk)
                if n == 0 { break }
                total += Int64(n)
            }
        }
        return total
    }

    /// The four change streams of an update, in feeding order: removals blocking and
    /// identification, then additions blocking and identification.
    @usableFromInline
    static func deltaStreams(_ old: CallDirIndex, _ new: CallDirIndex) -> [DeviceDeltaStream] {
        [DeviceDeltaStream(old: old, new: new, kind: .blocking, removals: true),
         DeviceDeltaStream(old: old, new: new, kind: .identification, removals: true),
         DeviceDeltaStream(old: old, new: new, kind: .blocking, removals: false),
         DeviceDeltaStream(old: old, new: new, kind: .identification, removals: false)]
    }

    /// The next span after `done`: how many changes of each stream it holds, its last number,
    /// and whether it reaches the end of every stream. A k-way walk of the four streams.
    @usableFromInline
    func planSpan(from previous: CallDirIndex, after done: Int64, budget: Int) throws -> (counts: [Int], end: Int64, last: Bool) {
        let streams = Self.deltaStreams(previous, index)
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
    func updateRequest<C: CallDirectoryContext>(into context: C, from previous: CallDirIndex,
                                                resumingFrom checkpoint: LoadCheckpoint) throws -> LoadStep {
        var next = checkpoint
        var step = LoadStep(kind: .incremental, checkpoint: next)
        let done = checkpoint.updateDoneThrough
        let plan = try planSpan(from: previous, after: done, budget: requestSize)
        let streams = Self.deltaStreams(previous, index)
        for (s, stream) in streams.enumerated() where plan.counts[s] > 0 {
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
            // Done: the device holds NEW, which is what a finished load of NEW says.
            next = LoadCheckpoint(index: index)
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
    static func feedRemovals<C: CallDirectoryContext>(_ stream: DeviceDeltaStream, into context: C, limit: Int) throws -> Int {
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
