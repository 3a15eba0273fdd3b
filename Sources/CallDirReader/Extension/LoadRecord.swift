/// What the two record files of the loading protocol hold (docs/CALLKIT.md; FORMAT.md, "Load
/// checkpoint", version 4): a checkpoint or nothing, numbered by the request that wrote it.
///
/// - The extension numbers each request one above every record it finds (`nextGeneration`)
///   and writes that number in its under-way record, its fed checkpoint and its confirmation,
///   so a record written after the app read one never has the same bytes: the app's
///   compare-and-clear (`ReloadCoordinator`) sees it, even when the checkpoint is identical.
/// - `confirmed`: the extension's completion handler saw CallKit accept the entries
///   (`expired == false`). A confirmed record is the device's state whoever asked for the
///   request, so the app adopts it instead of starting over (a relaunch, a system-run request).
/// - A record without a checkpoint is "under way" as pending, "start over" as committed.
/// - `requestSize`: the entries per request the app asks for (0: the extension's own); the app
///   halves it after a kill or an expiry and keeps it in the committed record.
public struct LoadRecord: Equatable, Sendable {
    /// The request that wrote the record, one above every record the extension found.
    public var generation: UInt64
    /// What the device holds after the request (nil: nothing known, start over).
    public var checkpoint: LoadCheckpoint?
    /// True once the extension saw CallKit accept the request's entries.
    public var confirmed: Bool
    /// Entries per request the app asks for (0: the extension's own).
    public var requestSize: UInt32

    /// A record of request `generation`; see the type for what each field means.
    public init(generation: UInt64, checkpoint: LoadCheckpoint?, confirmed: Bool = false, requestSize: UInt32 = 0) {
        self.generation = generation
        self.checkpoint = checkpoint
        self.confirmed = confirmed
        self.requestSize = requestSize
    }

    static let confirmedFlag: UInt16 = 8
    static let noCheckpointFlag: UInt16 = 0x20

    /// The record's bytes, as FORMAT.md specifies them.
    public var bytes: [UInt8] {
        var out = LoadCheckpoint.magic
        out.appendLE(LoadCheckpoint.version)
        let c = checkpoint
        var flags: UInt16 = confirmed ? Self.confirmedFlag : 0
        if let c {
            flags |= (c.blockingFinished ? 1 : 0) | (c.identificationFinished ? 2 : 0) | (c.update == nil ? 0 : 4)
        } else {
            flags |= Self.noCheckpointFlag
        }
        out.appendLE(flags)
        out.appendLE(c?.indexChecksum ?? 0)
        out.appendLE(c?.update?.fromChecksum ?? 0)
        out.appendLE(c?.indexByteCount ?? 0)
        out.appendLE(c?.update?.fromByteCount ?? 0)
        out.appendLE(c?.lastBlockingNumber ?? 0)
        out.appendLE(c?.lastIdentificationNumber ?? 0)
        out.appendLE(c?.entriesLoaded ?? 0)
        out.appendLE(generation)
        out.appendLE(requestSize)
        out.appendLE(c?.overlayDigest ?? 0)
        out.appendLE(c?.update?.fromOverlayDigest ?? 0)
        out.appendLE(Checksum.crc32(out))
        return out
    }

    /// Decodes stored bytes; throws `CallDirError` (`.corruptIndex` for damage,
    /// `.unsupportedVersion` for another layout). Callers may treat any error as "no record
    /// known": the loader then starts over, which is always safe.
    public init(bytes: [UInt8]) throws {
        func damage(_ message: String) -> CallDirError {
            CallDirError(.corruptIndex, "load record: \(message); discard it and load from the start")
        }
        let size = LoadCheckpoint.byteCount
        guard bytes.count == size else { throw damage("\(bytes.count) bytes, expected \(size)") }
        guard bytes.starts(with: LoadCheckpoint.magic) else { throw damage("not a load record (magic)") }
        let read = try bytes.withUnsafeBytes { raw -> (UInt16, UInt16, UInt32, UInt32, [Int64], UInt64, UInt32, [UInt64]) in
            guard Checksum.crc32(UnsafeRawBufferPointer(rebasing: raw[0..<(size - 4)])) == raw.readLE(UInt32.self, at: size - 4)! else {
                throw damage("checksum mismatch")
            }
            return (raw.readLE(UInt16.self, at: 4)!, raw.readLE(UInt16.self, at: 6)!, raw.readLE(UInt32.self, at: 8)!,
                    raw.readLE(UInt32.self, at: 12)!, (0..<5).map { raw.readLE(Int64.self, at: 16 + 8 * $0)! },
                    raw.readLE(UInt64.self, at: 56)!, raw.readLE(UInt32.self, at: 64)!, [raw.readLE(UInt64.self, at: 68)!, raw.readLE(UInt64.self, at: 76)!])
        }
        let (version, flags, checksum, fromChecksum, fields, generation, requestSize, overlays) = read
        guard version == LoadCheckpoint.version else {
            throw CallDirError(.unsupportedVersion, "load record version \(version), this reader knows \(LoadCheckpoint.version); load from the start")
        }
        self.init(generation: generation, checkpoint: nil, confirmed: flags & Self.confirmedFlag != 0, requestSize: requestSize)
        let state = flags & ~Self.confirmedFlag
        if state == Self.noCheckpointFlag {
            guard checksum == 0, fromChecksum == 0, fields.allSatisfy({ $0 == 0 }), overlays == [0, 0] else {
                throw damage("fields set in a record without a checkpoint")
            }
            return
        }
        let (byteCount, fromByteCount, lastBlocking, lastIdentification, entries) = (fields[0], fields[1], fields[2], fields[3], fields[4])
        let updating = state & 4 != 0
        guard state & ~0x7 == 0, fields.allSatisfy({ $0 >= 0 }),
              updating ? (state & 3 == 0 && lastBlocking == lastIdentification)
                       : (fromChecksum == 0 && fromByteCount == 0 && overlays[1] == 0) else {
            throw damage("reserved bits set, a negative field, or update fields without an update")
        }
        var c = LoadCheckpoint(indexChecksum: checksum, indexByteCount: byteCount)
        c.update = updating ? .init(fromChecksum: fromChecksum, fromByteCount: fromByteCount, fromOverlayDigest: overlays[1]) : nil
        c.overlayDigest = overlays[0]
        c.blockingFinished = state & 1 != 0
        c.identificationFinished = state & 2 != 0
        c.lastBlockingNumber = lastBlocking
        c.lastIdentificationNumber = lastIdentification
        c.entriesLoaded = entries
        checkpoint = c
    }

    /// A record's bytes read from a file (nil: no file), or nil when they do not decode.
    public static func decode(_ bytes: [UInt8]?) -> LoadRecord? { bytes.flatMap { try? LoadRecord(bytes: $0) } }

    /// The number of the next request: one above every record given (absent or unreadable
    /// ones count as 0). Counting only up, whatever the app clears, is what makes a record
    /// written after the app's read differ from the one it read.
    public static func nextGeneration(after records: [[UInt8]?]) -> UInt64 {
        let latest = records.compactMap { decode($0)?.generation }.max() ?? 0
        return latest == .max ? .max : latest + 1
    }

    /// True when both records say the same request left the same checkpoint (confirmation
    /// aside: the extension may confirm between the app's read and its clearing).
    public func isSameRequest(as other: LoadRecord) -> Bool {
        generation == other.generation && checkpoint == other.checkpoint && checkpoint != nil
    }
}
