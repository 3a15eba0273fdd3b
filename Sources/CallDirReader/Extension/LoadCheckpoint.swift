/// How far a device has loaded an index: what the app stores between Call Directory requests
/// (an App Group file, or `Data` in shared `UserDefaults`) as the 88 bytes of `bytes`, whose
/// layout FORMAT.md specifies ("Load checkpoint"). It names the index by its checksum and its
/// size (two indexes with equal CRCs are not taken for each other unless their sizes match
/// too), so a new index starts over, and resumes each kind after the last number fed: a seek,
/// not a scan.
///
/// The app commits a checkpoint only after `reloadExtension` reported success; after any
/// failure the device's store is empty and loading starts again from nil (see `DeviceLoader`).
/// The extension writes `underWayRecord` as pending before anything else, so a request whose
/// outcome the app never saw always leaves a trace (docs/CALLKIT.md has the protocol).
///
/// An update (the device held index OLD completely, the app now ships NEW) is recorded with
/// `update` set: NEW's checksum in `indexChecksum`, OLD's in `update.fromChecksum`, and in
/// both last-number fields the end of the last span of numbers whose changes were sent.
///
/// With the user's layer, what the device holds is list ⊕ overlay: `overlayDigest` names the
/// overlay (`PersonalOverlay.digest`, 0: none), so a load is resumed only with the same layer,
/// and a change of the layer alone is an update from (index, old digest) to (index, new digest).
public struct LoadCheckpoint: Equatable, Sendable {
    /// The checksum of the index being loaded; with `indexByteCount`, its identity.
    public var indexChecksum: UInt32
    /// The size in bytes of the index being loaded.
    public var indexByteCount: Int64
    /// Set while an incremental update from another index is under way (never when finished).
    public var update: Update?
    /// The last number fed per kind (0: none yet); in an update, both hold the span's end.
    public var lastBlockingNumber: Int64 = 0
    /// The last identification number fed (0: none yet).
    public var lastIdentificationNumber: Int64 = 0
    /// True once every entry of the kind has been fed.
    public var blockingFinished = false
    /// True once every identification entry has been fed.
    public var identificationFinished = false
    /// Entries fed so far by the requests this checkpoint covers, both kinds.
    public var entriesLoaded: Int64 = 0
    /// The user's layer applied (`PersonalOverlay.digest`; 0: the list alone).
    public var overlayDigest: UInt64 = 0

    /// A load of the index with this checksum and size that has fed nothing yet.
    public init(indexChecksum: UInt32, indexByteCount: Int64) {
        self.indexChecksum = indexChecksum
        self.indexByteCount = indexByteCount
    }

    /// A load of `index` (with the overlay of digest `overlay`) that has fed nothing yet.
    public init(index: CallDirIndex, overlay: UInt64 = 0) {
        self.init(indexChecksum: index.checksum, indexByteCount: Int64(index.file.count))
        overlayDigest = overlay
    }

    /// True when this checkpoint is about `index` (same checksum and size).
    public func names(_ index: CallDirIndex) -> Bool {
        indexChecksum == index.checksum && indexByteCount == Int64(index.file.count)
    }

    /// True when this checkpoint is about list ⊕ overlay: `index` with the overlay `overlay`.
    public func names(_ index: CallDirIndex, overlay: UInt64) -> Bool {
        names(index) && overlayDigest == overlay
    }

    /// True when the device holds every entry of the index.
    public var isFinished: Bool { blockingFinished && identificationFinished }

    /// Counts `fed` more entries, stopping at Int64.max: the count is for progress only, and a
    /// stored checkpoint (a valid CRC proves nothing against a forger) may hold any value.
    @inlinable
    public mutating func countFed(_ fed: Int) {
        let (sum, overflow) = entriesLoaded.addingReportingOverflow(Int64(fed))
        entriesLoaded = overflow ? .max : sum
    }

    /// An update under way: which index the device held, and how far the changes went. Each
    /// request of an update covers a span of numbers (both kinds): its removals, then its
    /// additions, so a relabelled number's removal and addition land in one request. While an
    /// update is under way, `lastBlockingNumber` and `lastIdentificationNumber` both hold the
    /// end of the last span sent: every change at or below it was fed.
    public struct Update: Equatable, Sendable {
        /// The checksum and size of the index the device held completely before the update.
        public var fromChecksum: UInt32
        /// The size in bytes of that index.
        public var fromByteCount: Int64
        /// The overlay the device held with it (0: none). A change of the layer alone is an
        /// update from the same index.
        public var fromOverlayDigest: UInt64

        /// An update from the index of `fromChecksum` and `fromByteCount`, held with the overlay
        /// of `fromOverlayDigest` (0: none).
        public init(fromChecksum: UInt32, fromByteCount: Int64, fromOverlayDigest: UInt64 = 0) {
            self.fromChecksum = fromChecksum
            self.fromByteCount = fromByteCount
            self.fromOverlayDigest = fromOverlayDigest
        }

        /// An update from `index` with the overlay of digest `overlay`.
        public init(from index: CallDirIndex, overlay: UInt64 = 0) {
            self.init(fromChecksum: index.checksum, fromByteCount: Int64(index.file.count), fromOverlayDigest: overlay)
        }

        /// True when the update starts from `index` with the overlay `overlay`.
        public func startsFrom(_ index: CallDirIndex, overlay: UInt64) -> Bool {
            fromChecksum == index.checksum && fromByteCount == Int64(index.file.count) && fromOverlayDigest == overlay
        }
    }

    /// The end of the last span an update sent (0: none yet).
    public var updateDoneThrough: Int64 { lastBlockingNumber }

    static let magic: [UInt8] = Array("CDLP".utf8)
    static let version: UInt16 = 4
    /// Encoded size in bytes (a `LoadRecord`: the checkpoint, its request's number and size).
    public static let byteCount = 88

    /// The checkpoint's bytes, as FORMAT.md specifies them: a `LoadRecord` numbered 0.
    public var bytes: [UInt8] { LoadRecord(generation: 0, checkpoint: self).bytes }

    /// Decodes stored bytes (any `LoadRecord` holding a checkpoint); throws `CallDirError`
    /// (`.corruptIndex` for damage or a record without a checkpoint, `.unsupportedVersion`
    /// for another layout). A loader given no checkpoint starts over, which is always safe:
    /// callers may treat any error as "no checkpoint".
    public init(bytes: [UInt8]) throws {
        guard let checkpoint = try LoadRecord(bytes: bytes).checkpoint else {
            throw CallDirError(.corruptIndex, "load checkpoint: an under-way or start-over record (a request was under way), not a checkpoint; load from the start")
        }
        self = checkpoint
    }

    // MARK: The under-way record

    /// What the extension writes as its *pending* record before it touches the request's
    /// context or opens the index (`CallDirectoryExtensionRequest` does it, numbered: see
    /// `LoadRecord`): "a request is under way". It overwrites the record with the request's
    /// checkpoint only after feeding. So every way a request can end without a checkpoint
    /// (killed for memory, the host failing a batch, a request the system started on its own)
    /// leaves a record the app did not commit, which means "the store may be empty": start
    /// over with a complete request. This one is numbered 0; FORMAT.md ("Load checkpoint").
    public static var underWayRecord: [UInt8] { LoadRecord(generation: 0, checkpoint: nil).bytes }

    /// What a pending file holds.
    public enum PendingRecord: Equatable, Sendable {
        /// No pending file: no request ran since the app last committed or discarded.
        case none
        /// A request started and did not finish writing its checkpoint (it failed, or is
        /// running now, or its outcome was never seen): the device's store may be empty.
        case underWay
        /// A request fed entries and wrote this checkpoint; commit it only after the app saw
        /// that request succeed.
        case fed(LoadCheckpoint)
        /// Damaged bytes: treated as `underWay`.
        case unreadable
    }

    /// Reads a pending file's bytes (nil: no file).
    public static func pendingRecord(_ bytes: [UInt8]?) -> PendingRecord {
        guard let bytes else { return .none }
        guard let record = LoadRecord.decode(bytes) else { return .unreadable }
        return record.checkpoint.map { .fed($0) } ?? .underWay
    }

    /// Where the extension resumes: the committed checkpoint, unless a pending record (the
    /// under-way record or a checkpoint, written by the extension and never committed or
    /// discarded by the app) is left over. Then a request ran whose outcome nobody saw (the
    /// system starts the extension on its own too, e.g. after a reboot or an app update, and
    /// any failed request deletes every entry), so the device may hold nothing: nil, start
    /// over with a complete request. Unreadable bytes also give nil.
    public static func resumePoint(committed: [UInt8]?, pendingLeftOver: [UInt8]?) -> LoadCheckpoint? {
        guard pendingLeftOver == nil, let committed else { return nil }
        return try? LoadCheckpoint(bytes: committed)
    }
}
