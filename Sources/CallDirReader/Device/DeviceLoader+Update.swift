/// Updates: the device holds index OLD (`previous`) completely and the app ships NEW (`index`).
/// Instead of a complete load of NEW, incremental requests send only the changes, in four
/// phases (`LoadCheckpoint.UpdatePhase`): every removal (blocking, then identification), then
/// every addition (blocking, then identification), each ascending, at most `requestSize`
/// changes per request, resuming where the last committed request ended. One switch from
/// removing to adding in the whole update: CallKit flushes synchronously at each switch.
///
/// The checkpoint rules do not change: the app commits a checkpoint only after success, and
/// after any failure (the store is then empty) the next request is a complete load of NEW.
/// The finished update's checkpoint is a finished load of NEW, so NEW -> NEWER works alike.
extension DeviceLoader {
    /// Where an update resumes, or nil when `checkpoint` does not allow one: it must be a
    /// finished load of `previous`, or an update from `previous` to `index` under way.
    @usableFromInline
    func updateStart(_ checkpoint: LoadCheckpoint, previous: CallDirIndex) -> LoadCheckpoint? {
        guard previous.checksum != index.checksum else { return nil }
        if let update = checkpoint.update {
            let ours = checkpoint.indexChecksum == index.checksum && update.fromChecksum == previous.checksum
            return ours ? checkpoint : nil
        }
        guard checkpoint.isFinished, checkpoint.indexChecksum == previous.checksum else { return nil }
        var start = LoadCheckpoint(indexChecksum: index.checksum)
        start.update = .init(fromChecksum: previous.checksum)
        return start
    }

    /// Feeds one incremental request of the update that `checkpoint` describes.
    @inlinable
    func updateRequest<C: CallDirectoryContext>(into context: C, from previous: CallDirIndex,
                                                resumingFrom checkpoint: LoadCheckpoint) throws -> LoadStep {
        var next = checkpoint
        var step = LoadStep(kind: .incremental, checkpoint: next)
        var budget = requestSize
        while var update = next.update {
            let phase = update.phase
            let blocking = phase.kind == .blocking
            let stream = DeviceDeltaStream(old: previous, new: index, kind: phase.kind, removals: phase.removes)
            try stream.seek(after: blocking ? next.lastBlockingNumber : next.lastIdentificationNumber)
            let fed = phase.removes ? try Self.feedRemovals(stream, into: context, limit: budget)
                                    : try Self.feed(stream, into: context, limit: budget)
            budget -= fed
            next.countFed(fed)
            switch phase {
            case .removeBlocking: step.blockingRemovals += fed
            case .removeIdentification: step.identificationRemovals += fed
            case .addBlocking: step.blockingEntries += fed
            case .addIdentification: step.identificationEntries += fed
            }
            if blocking { next.lastBlockingNumber = stream.lastNumber } else { next.lastIdentificationNumber = stream.lastNumber }
            guard try stream.atEnd() else { break }
            if let following = LoadCheckpoint.UpdatePhase(rawValue: phase.rawValue + 1) {
                update.phase = following
                next.update = update
                if following.kind == .blocking { next.lastBlockingNumber = 0 } else { next.lastIdentificationNumber = 0 }
            } else {
                // Done: the device holds NEW, which is what a finished load of NEW says.
                next.update = nil
                next.blockingFinished = true
                next.identificationFinished = true
                next.entriesLoaded = index.metadata.deviceEntries
            }
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
