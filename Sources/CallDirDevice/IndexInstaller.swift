import CallDirPatch
import CallDirReader
import CallDirWriter

/// The app's half of getting a new index to its extension: installs a downloaded index (or the
/// result of patching a delta) into the shared folder so that the extension always finds a
/// complete, verified index under `SharedFolder.indexPath`.
///
/// 1. Copies the candidate into the folder under a temporary name (atomically) and opens the
///    copy with every checksum and invariant verified, then checks what the caller expects of
///    it (e.g. a signed manifest's checksum, size and device entries).
/// 2. Keeps the current index as the previous one (`previousIndexPath`) when the committed
///    checkpoint says the device holds it completely: the next load is then an update, which
///    sends only the changes. Otherwise no update can start, and a stale previous index goes.
/// 3. Renames the verified copy over the index: the extension opens the old file or the new
///    one, never none (a file it has open stays readable).
///
/// Any failure (a damaged candidate, disk full, a failed rename) leaves the index and the
/// device's store as they were, with an error naming the file and the reason. The load
/// checkpoints need no change: they name the index by its checksum, so the next request
/// starts the update or the complete load by itself. Use it through `ReloadCoordinator.install`
/// (or `installDelta`) so that an install never interleaves with the app's own reloads.
public struct IndexInstaller: Sendable {
    /// The App Group folder the index is installed into.
    public let folder: SharedFolder

    /// An installer for `folder`.
    public init(folder: SharedFolder) {
        self.folder = folder
    }

    /// What a candidate must be; nil fields are not checked.
    public struct Expectation: Sendable, Equatable {
        /// The index's checksum (a feed manifest's CRC-32).
        public var checksum: UInt32?
        /// The index's size in bytes.
        public var byteCount: Int?
        /// The entries CallKit will hold.
        public var deviceEntries: Int64?

        /// What to check; nil checks nothing of that.
        public init(checksum: UInt32? = nil, byteCount: Int? = nil, deviceEntries: Int64? = nil) {
            self.checksum = checksum
            self.byteCount = byteCount
            self.deviceEntries = deviceEntries
        }
    }

    /// What an install did.
    public struct Installed: Sendable, Equatable {
        /// The installed index's checksum.
        public var checksum: UInt32
        /// The entries CallKit will hold.
        public var deviceEntries: Int64
        /// True when the index it replaced was kept as the previous one (an update follows).
        public var keptPrevious: Bool
    }

    /// Installs the index file at `candidate` (anywhere; it is copied, not moved). Throws
    /// `CallDirError`: `.corruptIndex` or `.unsupportedVersion` for a bad candidate,
    /// `.deltaMismatch` when it is not what `expected` says, `.io` for the file system; and
    /// whatever `check` throws (a feed's SHA-256, given the verified copy before it is published).
    @discardableResult
    public func install(_ candidate: String, expecting expected: Expectation = Expectation(),
                        check: ((MappedFile) throws -> Void)? = nil) throws -> Installed {
        StaleTemporaries.sweep(folders: [folder.path])
        defer { try? folder.remove(stagingPath) }
        try folder.copyAtomically(candidate, to: stagingPath)
        return try publishStaged(expecting: expected, candidate: candidate, check: check)
    }

    /// Deltas on the phone: patches the installed index with the delta at `delta` (`calldir
    /// diff`'s output, e.g. downloaded from a feed) into the folder, verifies the result as
    /// `install` does, and installs it; the index it replaces is kept as the previous one when
    /// the device holds it, so the next load sends only the changes (`DeviceLoader(index:
    /// previous:)`). The patch's temporaries go in the shared folder itself (the App Group
    /// container: no /tmp on a phone). Throws `.deltaMismatch` when the delta is not for the
    /// installed index or its result is not the index the delta (or `expected`) names; nothing
    /// is installed then.
    @discardableResult
    public func installDelta(_ delta: String, expecting expected: Expectation = Expectation(),
                             check: ((MappedFile) throws -> Void)? = nil) throws -> Installed {
        StaleTemporaries.sweep(folders: [folder.path])
        defer { try? folder.remove(stagingPath) }
        let deltaFile = try DeltaFile(path: delta, verify: true)
        guard folder.exists(folder.indexPath) else {
            throw CallDirError(.deltaMismatch, "no index is installed to apply the delta to; install the full index", path: delta)
        }
        let base = try CallDirIndex(path: folder.indexPath)
        _ = try Patcher.patch(old: base, delta: deltaFile, output: stagingPath, temporaryFolder: folder.path)
        var expected = expected
        expected.checksum = expected.checksum ?? deltaFile.newChecksum
        expected.byteCount = expected.byteCount ?? deltaFile.newSize
        return try publishStaged(expecting: expected, candidate: delta, check: check)
    }

    /// True when the committed checkpoint is a finished load of the installed index, with no
    /// uncommitted record beside it: the device holds the index, no load is needed.
    public func isLoadedCompletely() throws -> Bool { try loadedCheckpoint() != nil }

    /// The committed checkpoint when `isLoadedCompletely`, else nil.
    public func loadedCheckpoint() throws -> LoadCheckpoint? {
        guard folder.exists(folder.indexPath), !folder.exists(folder.takenPath),
              let bytes = try folder.readCommitted(), let committed = LoadRecord.decode(bytes), let checkpoint = committed.checkpoint,
              checkpoint.isFinished else { return nil }
        if let pending = try folder.readPending() {
            guard let record = LoadRecord.decode(pending), record.confirmed, record.isSameRequest(as: committed) else { return nil }
        }
        guard let current = try? CallDirIndex(path: folder.indexPath), checkpoint.names(current) else { return nil }
        return checkpoint
    }

    /// Where a candidate is verified before it is renamed over the index.
    var stagingPath: String { folder.path + "/incoming.calldir" }

    /// Verifies the staged file, keeps (or drops) the previous index, renames the staged file
    /// over the index.
    private func publishStaged(expecting expected: Expectation, candidate: String,
                               check extra: ((MappedFile) throws -> Void)?) throws -> Installed {
        let index = try CallDirIndex(path: stagingPath, verify: true)
        try check(index, against: expected, candidate: candidate)
        try extra?(index.file)
        let keep = try isLoadedCompletely()
        if keep {
            try folder.copyAtomically(folder.indexPath, to: folder.previousIndexPath)
        } else {
            try folder.remove(folder.previousIndexPath)
        }
        try folder.rename(stagingPath, to: folder.indexPath)
        return Installed(checksum: index.checksum, deviceEntries: index.metadata.deviceEntries, keptPrevious: keep)
    }

    private func check(_ index: CallDirIndex, against expected: Expectation, candidate: String) throws {
        func mismatch(_ what: String, _ wanted: String, _ found: String) -> CallDirError {
            CallDirError(.deltaMismatch, "\(what) is \(found), expected \(wanted): not the index announced; nothing installed", path: candidate)
        }
        if let checksum = expected.checksum, checksum != index.checksum {
            throw mismatch("checksum", hex(checksum), hex(index.checksum))
        }
        if let byteCount = expected.byteCount, byteCount != index.file.count {
            throw mismatch("size", "\(byteCount) bytes", "\(index.file.count) bytes")
        }
        if let entries = expected.deviceEntries, entries != index.metadata.deviceEntries {
            throw mismatch("device entries", "\(entries)", "\(index.metadata.deviceEntries)")
        }
    }

    /// True when the committed checkpoint is a finished load of the installed index, with no
    /// uncommitted record beside it (a pending record of that very request, confirmed, is
    /// not one: the extension's confirmation came after the app's clearing).
}
