/// The extension's half of the loading protocol (docs/CALLKIT.md), in the order that leaves
/// no hole: call `run(into:)` first thing in `beginRequest(with:)`.
///
/// 1. Read the pending record left over (if any), a record the app was clearing (taken) and
///    the committed one; number this request one above all of them (`LoadRecord`).
/// 2. Write the under-way record (numbered) as pending, before touching the context or opening
///    the index: from here on, however this request ends, the app finds a record it did not
///    commit and starts over (a failed request deletes every entry, and the system starts the
///    extension on its own too, e.g. after a reboot, with nobody watching the outcome).
/// 3. Open the index (and the previous one, for an update) and feed one request of at most the
///    size the committed record asks for, from `LoadCheckpoint.resumePoint` (nil when a pending
///    or taken record was left over: a complete load). No index yet: feed nothing. With
///    `personal`, the user's layer and contacts in the folder are resolved now and applied
///    (`SharedFolder.currentOverlay`); the overlay the checkpoint names is read back from its
///    held copy (the base of a change of the layer), and this one is kept before feeding.
/// 4. Overwrite pending with the request's checkpoint; then the caller completes the request.
///
/// On a throw, fail the request (`cancelRequest(withError:)`). In `completeRequest`'s handler,
/// call `completed(expired:)`: an expired completion added nothing, so the record goes back to
/// "under way"; otherwise it is marked confirmed, which the app adopts even if it never saw the
/// outcome. When CallKit calls the delegate's `requestFailed(for:withError:)`, call
/// `stop()`: feeding ends within a few thousand entries and no checkpoint is written.
public final class CallDirectoryExtensionRequest: @unchecked Sendable {  // `stopped` and `record` are guarded by `lock`
    /// The App Group folder the index, the records and the user's layer are read from.
    public let folder: SharedFolder
    /// Entries one request feeds at most (CallKit's cap is 1,999,999).
    public let requestSize: Int
    /// How to resolve the user's layer (nil: the list alone).
    public let personal: PersonalSettings?
    private let lock = SystemLock()
    private var stopped = false
    /// This request's record as last written (its number and size; its checkpoint once fed).
    private var record: LoadRecord?

    /// A request over `folder` feeding at most `requestSize` entries, with the user's layer
    /// resolved by `personal` (nil: the list alone).
    public init(folder: SharedFolder, requestSize: Int = DeviceLoader.defaultRequestSize, personal: PersonalSettings? = nil) {
        self.folder = folder
        self.requestSize = requestSize
        self.personal = personal
    }

    /// Feeds one request into `context` and records its checkpoint as pending; returns nil when
    /// no index is installed yet (the request then feeds nothing: complete it, and the device
    /// holds no entries, which is what the app expects before its first install). Throws
    /// `CallDirError` (the index damaged, a record that cannot be written, the request
    /// stopped): the caller must then fail the request.
    public func run<C: CallDirectoryContext>(into context: C) throws -> LoadStep? {
        // 1. Unreadable records count as left over (start over) and as numbered 0.
        let leftOver: [UInt8]?
        do { leftOver = try folder.readPending() } catch { leftOver = LoadCheckpoint.underWayRecord }
        let taken: [UInt8]?  // a record the app was clearing: treated as left over
        do { taken = try folder.read(folder.takenPath) } catch { taken = LoadCheckpoint.underWayRecord }
        let committed = (try? folder.readCommitted()) ?? nil
        let askedSize = LoadRecord.decode(committed)?.requestSize ?? 0
        let size = askedSize > 0 ? min(requestSize, Int(askedSize)) : requestSize
        let generation = LoadRecord.nextGeneration(after: [leftOver, taken, committed])
        let underWay = LoadRecord(generation: generation, checkpoint: nil, requestSize: UInt32(clamping: size))
        lock.withLock { record = underWay }
        // 2. The under-way record, before anything can fail or touch the store.
        do {
            try folder.writeAtomically(underWay.bytes, to: folder.pendingPath)
        } catch let error as CallDirError {
            // Without the record, the committed checkpoint must go (the app then starts over);
            // if even that fails, the request fails with both errors named.
            do { try folder.remove(folder.committedPath) } catch {
                throw CallDirError(.io, "cannot record the request as under way (\(error)), nor remove the committed checkpoint: the app must start over", path: folder.pendingPath)
            }
            throw error
        }
        // 3. Feed (nothing before the first install).
        guard folder.exists(folder.indexPath) else { return nil }
        let index = try CallDirIndex(path: folder.indexPath)
        let previous = folder.exists(folder.previousIndexPath) ? try? CallDirIndex(path: folder.previousIndexPath) : nil
        // A pending or taken record of the very request committed (the app killed between its
        // commit and its clearing, or a confirmation that came after it) is not left over.
        let committedRecord = LoadRecord.decode(committed)
        let leftOvers = [leftOver, taken].filter { bytes in
            guard let bytes else { return false }
            guard let record = LoadRecord.decode(bytes), let committedRecord else { return true }
            return !record.isSameRequest(as: committedRecord)
        }
        let start = LoadCheckpoint.resumePoint(committed: committed, pendingLeftOver: leftOvers.first ?? nil)
        let overlay = try personal.map(folder.currentOverlay)
        let digest = overlay?.digest ?? 0
        // The overlay the device holds (or an update under way started from), if another one.
        let heldDigest = [start?.update?.fromOverlayDigest, start?.overlayDigest].compactMap { $0 }.first { $0 != digest }
        let held = heldDigest.flatMap(folder.heldOverlay)
        if let overlay { try folder.keepHeldOverlay(overlay) }
        let loader = try DeviceLoader(index: index, previous: previous, requestSize: size, overlay: overlay, held: held)
        let stoppable = StoppableContext(context, request: self)
        let step = try loader.loadRequest(into: stoppable, resumingFrom: start)
        guard !isStopped else {
            throw CallDirError(.io, "CallKit failed the request while it was fed (requestFailed): no checkpoint written", path: folder.pendingPath)
        }
        // 4. The checkpoint, for the app to commit once it sees the request succeed.
        let fed = LoadRecord(generation: generation, checkpoint: step.checkpoint, requestSize: underWay.requestSize)
        try folder.writeAtomically(fed.bytes, to: folder.pendingPath)
        lock.withLock { record = fed }
        return step
    }

    /// Call from `completeRequest`'s handler. Expired: CallKit added nothing, so the record
    /// goes back to "under way" (the app must not commit it). Not expired: the record is
    /// marked confirmed, so an app that never saw the outcome (killed, relaunched, or a request
    /// the system started) adopts it instead of starting over; unless a later request already
    /// wrote (a late handler would hide that request's record) or the app already committed
    /// this request (nothing left to say).
    public func completed(expired: Bool) {
        guard var record = lock.withLock({ record }) else { return }
        if expired {
            record.checkpoint = nil
            if (try? folder.writeAtomically(record.bytes, to: folder.pendingPath)) == nil { try? folder.remove(folder.committedPath) }
        } else if record.checkpoint != nil {
            let others = [(try? folder.readPending()) ?? nil, (try? folder.readCommitted()) ?? nil].compactMap(LoadRecord.decode)
            guard !others.contains(where: { $0.generation > record.generation }),
                  LoadRecord.decode((try? folder.readCommitted()) ?? nil)?.isSameRequest(as: record) != true else { return }
            record.confirmed = true
            try? folder.writeAtomically(record.bytes, to: folder.pendingPath)
        }
    }

    /// Call from the delegate's `requestFailed(for:withError:)`: feeding stops.
    public func stop() { lock.withLock { stopped = true } }

    /// Whether `stop()` was called: feeding ends at the next check.
    public var isStopped: Bool { lock.withLock { stopped } }
}

/// Forwards to a context until the request is stopped; checks the flag once per 4,096 calls.
final class StoppableContext<C: CallDirectoryContext>: CallDirectoryContext {
    let base: C
    let request: CallDirectoryExtensionRequest
    private var calls = 0
    private var stopped = false

    init(_ base: C, request: CallDirectoryExtensionRequest) {
        self.base = base
        self.request = request
    }

    @inline(__always) private func live() -> Bool {
        calls &+= 1
        if calls & 4095 == 0 { stopped = request.isStopped }
        return !stopped
    }

    var isIncremental: Bool { base.isIncremental }
    func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: Int64) {
        if live() { base.addBlockingEntry(withNextSequentialPhoneNumber: phoneNumber) }
    }
    func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: Int64, label: String) {
        if live() { base.addIdentificationEntry(withNextSequentialPhoneNumber: phoneNumber, label: label) }
    }
    func removeBlockingEntry(withPhoneNumber phoneNumber: Int64) {
        if live() { base.removeBlockingEntry(withPhoneNumber: phoneNumber) }
    }
    func removeAllBlockingEntries() { if live() { base.removeAllBlockingEntries() } }
    func removeIdentificationEntry(withPhoneNumber phoneNumber: Int64) {
        if live() { base.removeIdentificationEntry(withPhoneNumber: phoneNumber) }
    }
    func removeAllIdentificationEntries() { if live() { base.removeAllIdentificationEntries() } }
}
