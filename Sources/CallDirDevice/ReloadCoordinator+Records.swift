import CallDirReader

/// The records' side of `ReloadCoordinator` (docs/CALLKIT.md, "The protocol between app and
/// extension"): what a request left, committing it, clearing pending, starting over, and the
/// request size.
extension ReloadCoordinator {
    /// Seconds waited, one after the other, for the extension to confirm a request CallKit
    /// already reported done (about 3 s in all): CallKit may answer the app before the
    /// extension's completion handler runs.
    static let confirmationWaits: [Double] = [0.05, 0.1, 0.2, 0.4, 0.8, 1.6]
    /// Seconds `loadAll` waits in all, per run of error 7, for another load to end (a request
    /// of 1,999,999 entries takes about 9 s on a device).
    static let otherLoadPatience: Double = 600
    /// Requests committed in a row before the request size doubles back.
    static let successesBeforeGrowing = 4

    /// What records a launch or an earlier request left: a clearing the app did not finish
    /// (the taken record) is finished or, if another request wrote in between, starts over; a
    /// pending record of the very request committed (the app killed between its commit and
    /// clearing pending, or a confirmation that came after the clearing) is cleared; after
    /// error 7 any pending record but a confirmed one is the other load's, left alone while it
    /// runs; an unconfirmed checkpoint is waited for once more; a confirmed pending record is
    /// committed (returned); else it starts over.
    func settleLeftOvers() async throws -> LoadCheckpoint? {
        if let taken = try io({ try folder.read(folder.takenPath) }) {
            let committed = LoadRecord.decode(try io { try folder.readCommitted() })
            guard let committed, LoadRecord.decode(taken)?.isSameRequest(as: committed) == true else {
                try startOver(halvingRequests: false)
                return nil
            }
            try io { try folder.remove(folder.takenPath) }
        }
        guard let bytes = try io({ try folder.readPending() }) else { return nil }
        let record = LoadRecord.decode(bytes)
        let committed = LoadRecord.decode(try io { try folder.readCommitted() })
        if let record, let committed, record.isSameRequest(as: committed) {
            // Taken aside and compared, as `commit` does: a record written in between (a late
            // expiry) is not cleared unseen.
            guard let taken = LoadRecord.decode(try io { try folder.take(folder.pendingPath, to: folder.takenPath) }),
                  taken.isSameRequest(as: committed) else {
                try startOver(halvingRequests: false)
                return nil
            }
            try io { try folder.remove(folder.takenPath) }
            return committed.checkpoint
        }
        let next = LoadRecord.nextGeneration(after: [try io { try folder.readCommitted() }])
        var newest = record.flatMap { $0.checkpoint != nil && $0.generation >= next ? $0 : nil }
        if let fed = newest, !fed.confirmed, progress.busyAnswers == 0 { newest = try await awaitConfirmation(of: fed) }
        if let newest, newest.confirmed, newest.checkpoint != nil, newest.generation >= next { return try commit(newest) }
        if progress.busyAnswers > 0 { return nil }  // the other load's record, while it runs
        try startOver(halvingRequests: false)
        return nil
    }

    /// After CallKit reported the request of generation `expected` done: its own checkpoint,
    /// or a later request's confirmed one (the store is what the last request left), is
    /// committed once the extension confirmed it (`awaitConfirmation`): never before, as an
    /// expired completion may still come and empty the store, and a load built on it would be
    /// reported finished with the list missing. Unconfirmed after the wait: it stays pending,
    /// a failure (`.unconfirmed`), and `settleLeftOvers` waits once more before it adopts it or
    /// starts over. Anything else (an expiry: this request's record back to under way; a later
    /// request not confirmed; damage) starts over. Returns nil when nothing was committed.
    func settleRequest(expected: UInt64) async throws -> LoadCheckpoint? {
        var record = LoadRecord.decode(try io { try folder.readPending() })
        if let fed = record, fed.checkpoint != nil, !fed.confirmed, fed.generation >= expected {
            record = try await awaitConfirmation(of: fed)
        }
        guard let record, record.checkpoint != nil, record.generation == expected || (record.confirmed && record.generation > expected) else {
            try startOver(halvingRequests: record?.checkpoint == nil && record?.generation == expected)
            try fail(.noCheckpoint)
            return nil
        }
        if !record.confirmed {
            try fail(.unconfirmed)
            return nil
        }
        guard let checkpoint = try commit(record) else {
            try fail(.noCheckpoint)
            return nil
        }
        return checkpoint
    }

    /// Waits (`confirmationWaits`) until pending no longer holds `fed` unconfirmed: confirmed,
    /// or put back to under way (expired), or replaced. Returns what pending holds then.
    private func awaitConfirmation(of fed: LoadRecord) async throws -> LoadRecord? {
        var record: LoadRecord? = fed
        for wait in Self.confirmationWaits where !Task.isCancelled {
            await platform.pause(seconds: wait)
            try stepHook?(.awaitingConfirmation)
            record = LoadRecord.decode(try io { try folder.readPending() })
            guard let now = record, now.isSameRequest(as: fed), !now.confirmed else { return record }
        }
        return record
    }

    /// Commits `record` (the pending one the app just read), then clears pending only if it
    /// still holds that request's record: pending is taken aside by a rename (atomic: a write
    /// after it makes a new pending file) and compared by generation and checkpoint. If another
    /// request wrote in between (an expired completion, a system-run request), its outcome is
    /// unknown: start over, returning nil.
    func commit(_ record: LoadRecord) throws -> LoadCheckpoint? {
        var committed = record
        committed.confirmed = true
        try io { try folder.writeAtomically(committed.bytes, to: folder.committedPath) }
        try stepHook?(.afterCommit)
        guard let taken = try io({ try folder.take(folder.pendingPath, to: folder.takenPath) }) else { return record.checkpoint }
        let takenRecord = LoadRecord.decode(taken)
        if let takenRecord, !takenRecord.isSameRequest(as: record) {
            // A later request that CallKit confirmed is the store: adopt it, else start over.
            guard takenRecord.confirmed, takenRecord.checkpoint != nil, takenRecord.generation > record.generation else {
                try startOver(halvingRequests: false)
                return nil
            }
            try io { try folder.writeAtomically(takenRecord.bytes, to: folder.committedPath) }
        } else if takenRecord == nil {
            try startOver(halvingRequests: false)
            return nil
        }
        try io { try folder.remove(folder.takenPath) }
        return takenRecord?.checkpoint
    }

    /// Forgets all progress: committed becomes a record without a checkpoint (keeping the
    /// request count, and the request size, halved after a kill or an expiry), then pending
    /// and the taken record go (a crash in between still leaves pending, which says the same).
    func startOver(halvingRequests: Bool) throws {
        progress.successes = 0
        try io {
            let records = [try folder.readCommitted(), try folder.readPending(), try folder.read(folder.takenPath)]
            var size = currentRequestSize(LoadRecord.decode(records[0]))
            if halvingRequests {
                progress.failedSize = min(progress.failedSize ?? size, size)
                size = max(min(minimumRequestSize, size), size / 2)
            }
            let restart = LoadRecord(generation: LoadRecord.nextGeneration(after: records) - 1, checkpoint: nil,
                                     requestSize: UInt32(clamping: size))
            try folder.writeAtomically(restart.bytes, to: folder.committedPath)
            try folder.remove(folder.pendingPath)
            try folder.remove(folder.takenPath)
        }
    }

    /// After a committed request: every `successesBeforeGrowing` in a row, the size the
    /// committed record asks for doubles, up to `requestSize`, unless that reaches a size that
    /// was killed or expired in this `loadAll`.
    func growAfterSuccess() throws {
        progress.successes += 1
        guard progress.successes >= Self.successesBeforeGrowing else { return }
        try io {
            guard var record = LoadRecord.decode(try folder.readCommitted()) else { return }
            let size = currentRequestSize(record)
            let grown = min(requestSize, size * 2)
            guard grown > size, progress.failedSize.map({ grown < $0 }) ?? true else { return }
            record.requestSize = UInt32(clamping: grown)
            try folder.writeAtomically(record.bytes, to: folder.committedPath)
            progress.successes = 0
        }
    }

    /// The request size the committed record asks for, else the coordinator's.
    private func currentRequestSize(_ committed: LoadRecord?) -> Int {
        guard let size = committed?.requestSize, size > 0 else { return requestSize }
        return Int(size)
    }
}

/// What one `loadAll` has seen so far.
struct LoadProgress {
    /// Requests tried (answers of error 7 included).
    var requests = 0
    /// Failed requests in a row.
    var failures = 0
    /// Answers of error 7 in a row, and the seconds waited for the other load in all.
    var busyAnswers = 0
    var busyWaited = 0.0
    /// Requests committed in a row since the size last changed.
    var successes = 0
    /// The smallest request size killed or expired in this `loadAll`.
    var failedSize: Int?

    /// A request ran again (CallKit answered something else than error 7).
    mutating func otherLoadEnded() {
        busyAnswers = 0
        busyWaited = 0
    }
}
