import CallDir
import CallDirFeed
import CallDirReader

/// `calldir update` (and each poll of `serve --follow`): brings the index at `indexPath` to
/// the feed's current one. The manifest is verified (signature, expiry, rollback) before any
/// download; the download is checked for size and SHA-256 as it arrives; a delta is patched
/// onto the installed index; the result is checked against the manifest (size, SHA-256,
/// CRC-32, device entries) and only then renamed over the index; the serial is recorded last.
/// Any failure leaves the installed index as it was.
package struct FeedUpdater: Sendable {
    package enum Result: Sendable, Equatable {
        case upToDate(serial: Int64)
        case installed(serial: Int64, viaDelta: Bool, downloaded: Int64)
    }

    package var indexPath: String
    package var trusted: [FeedPublicKey]
    package var temporaryFolder = "/tmp"
    package var now: @Sendable () -> Int64 = { FeedText.now() }
    package var progress: (@Sendable (Int64, Int64) -> Void)?

    package init(indexPath: String, trusted: [FeedPublicKey]) {
        self.indexPath = indexPath
        self.trusted = trusted
    }

    package var statePath: String { FeedState.path(forIndex: indexPath) }

    package func readState() throws -> FeedState? {
        guard let bytes = try FeedFiles.read(statePath, maxBytes: 1 << 16) else { return nil }
        return try FeedState.parse(bytes, name: statePath)
    }

    package func update(transport: some FeedTransport) async throws -> Result {
        try await update(transport: transport, ifNoneMatch: nil).result
    }

    /// With `ifNoneMatch`, the ETag of the manifest last seen: a server answering "not
    /// modified" costs one small request (`serve --follow`). Returns the manifest's ETag.
    package func update(transport: some FeedTransport, ifNoneMatch: String?) async throws -> (result: Result, etag: String?) {
        let state = try readState()
        // The installed index, when there is a readable one: the base a delta applies to.
        let installed = Syscalls.exists(indexPath) ? try? CallDirIndex(path: indexPath, verify: false) : nil
        guard let check = try await FeedCheck.run(transport: transport, trusted: trusted, state: state,
                                                  installedSHA256: { installed.map { FeedFiles.sha256($0.file) } },
                                                  now: now(), ifNoneMatch: ifNoneMatch) else {
            return (.upToDate(serial: state?.serial ?? 0), ifNoneMatch)
        }
        return (try await install(check, installed: installed, transport: transport), check.etag)
    }

    private func install(_ check: FeedCheck, installed: CallDirIndex?, transport: some FeedTransport) async throws -> Result {
        let state = try readState()
        let manifest = check.manifest
        switch check.plan {
        case .upToDate:
            if state?.serial != manifest.serial { try record(manifest) }
            return .upToDate(serial: manifest.serial)
        case .full(let entry):
            let out = try AtomicFile(destination: indexPath, role: "the index")
            do {
                let sink = FeedDownloadSink(path: transport.location(entry.path), size: entry.size, sha256: entry.sha256, progress: progress) {
                    try out.append($0)
                }
                try await transport.download(entry.path, maxBytes: Int(entry.size), into: sink)
                try sink.finish()
                try verify(try out.mapWritten(), against: manifest)
                try out.publish()
            } catch {
                out.discard()
                throw error
            }
            try record(manifest)
            return .installed(serial: manifest.serial, viaDelta: false, downloaded: entry.size)
        case .delta(let entry):
            guard let installed else { throw FeedError(.base, "no installed index to apply a delta to", path: indexPath) }
            let deltaFile = try AtomicFile(destination: indexPath + ".feed-delta", role: "the downloaded delta")
            let staging = indexPath + ".feed-new"
            defer { deltaFile.discard(); _ = Syscalls.unlink(staging) }
            let sink = FeedDownloadSink(path: transport.location(entry.path), size: entry.size, sha256: entry.sha256, progress: progress) {
                try deltaFile.append($0)
            }
            try await transport.download(entry.path, maxBytes: Int(entry.size), into: sink)
            try sink.finish()
            try deltaFile.prepare()
            do {
                let delta = try DeltaFile(path: deltaFile.temporaryPath, verify: true)
                guard delta.oldChecksum == installed.checksum, delta.oldSize == installed.file.bytes.count else {
                    throw FeedError(.base, "the delta applies to the index with CRC-32 \(FeedFiles.crcText(delta.oldChecksum)) "
                                    + "(\(delta.oldSize) bytes), not the installed one (\(FeedFiles.crcText(installed.checksum)), "
                                    + "\(installed.file.bytes.count) bytes)", path: transport.location(entry.path))
                }
                _ = try Patcher.patch(old: installed, delta: delta, output: staging, temporaryFolder: temporaryFolder)
            } catch let error as CallDirError {
                throw FeedError(error.code == .deltaMismatch ? .base : .install, error.description, path: transport.location(entry.path))
            }
            try verify(try MappedFile(path: staging), against: manifest)
            try FeedFiles.rename(staging, over: indexPath)
            try record(manifest)
            return .installed(serial: manifest.serial, viaDelta: true, downloaded: entry.size)
        }
    }

    /// The new index is the manifest's: size, SHA-256, then a full verification (every
    /// section's CRC) and the CRC-32 and device entries the manifest announces.
    func verify(_ file: MappedFile, against manifest: FeedManifest) throws {
        let expected = manifest.index
        guard Int64(file.bytes.count) == expected.size else {
            throw FeedError(.size, "the new index has \(file.bytes.count) bytes, the manifest announces \(expected.size)", path: file.path)
        }
        let sha = FeedFiles.sha256(file)
        guard sha == expected.sha256 else {
            throw FeedError(.digest, "the new index's SHA-256 \(sha) differs from the manifest's \(expected.sha256)", path: file.path)
        }
        let index: CallDirIndex
        do { index = try CallDirIndex(file: file, verify: true) } catch {
            throw FeedError(.digest, "the new index does not verify: \(error)", path: file.path)
        }
        guard FeedFiles.crcText(index.checksum) == expected.crc32, index.metadata.deviceEntries == expected.deviceEntries else {
            throw FeedError(.digest, "the new index has CRC-32 \(FeedFiles.crcText(index.checksum)) and "
                            + "\(index.metadata.deviceEntries) device entries; the manifest announces \(expected.crc32) "
                            + "and \(expected.deviceEntries)", path: file.path)
        }
    }

    func record(_ manifest: FeedManifest) throws {
        let state = FeedState(serial: manifest.serial, sha256: manifest.index.sha256, keyId: manifest.keyId,
                              manifestCreated: manifest.created, installed: now())
        try FeedFiles.publish(state.rendered(), to: statePath, role: "the feed state")
    }
}
