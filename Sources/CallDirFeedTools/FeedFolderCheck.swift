import CallDirFeed
import CallDirReader
import CallDirPatch

/// `calldir verify --feed DIR`: the whole folder checked before upload, as a follower would
/// see it: the signature with a trusted key, the expiry, every named file present with its
/// size and SHA-256, the index fully verified with its CRC-32 and device entries, and each
/// delta a valid delta to the index, applied to its base as followers apply it when the base is
/// still in the folder (the result must be the manifest's index).
package enum FeedFolderCheck {
    package struct Report: Sendable {
        package var manifest: FeedManifest
        package var checkedFiles = 0
    }

    package static func run(feed: String, trusted: [FeedPublicKey], trustedVersion: Int64 = 1, now: Int64 = FeedText.now(),
                            temporaryFolder: String = FeedFiles.temporaryFolder) async throws -> Report {
        let transport = FolderFeedTransport(root: feed)
        guard let check = try await FeedCheck.run(transport: transport, trusted: trusted, trustedVersion: trustedVersion, state: nil,
                                                  installedSHA256: nil, now: now) else {
            throw FeedError(.manifest, "no manifest", path: feed)
        }
        let m = check.manifest
        var report = Report(manifest: m)
        // The index: size and SHA-256 as a download would check them, then a full verification.
        let index = try mapped(feed, m.index.path, size: m.index.size, sha256: m.index.sha256)
        try FeedUpdater(indexPath: feed, trusted: trusted).verify(index, against: m)
        report.checkedFiles += 1
        let indexCRC = try CallDirIndex(file: index, verify: false).checksum
        for d in m.deltas {
            let file = try mapped(feed, d.path, size: d.size, sha256: d.sha256)
            let delta: DeltaFile
            do { delta = try DeltaFile(file: file, verify: true) } catch {
                throw FeedError(.digest, "not a valid delta: \(error)", path: feed + "/" + d.path)
            }
            guard delta.newChecksum == indexCRC, Int64(delta.newSize) == m.index.size else {
                throw FeedError(.base, "the delta leads to CRC-32 \(FeedFiles.crcText(delta.newChecksum)), not the index's \(m.index.crc32)",
                                path: feed + "/" + d.path)
            }
            let basePath = feed + "/index/\(d.from).calldir"
            if Syscalls.exists(basePath) {
                let base = try CallDirIndex(path: basePath, verify: false)
                guard FeedFiles.sha256(base.file) == d.from else {
                    throw FeedError(.base, "the delta does not start from index \(d.from)", path: feed + "/" + d.path)
                }
                try patchAsFollowers(base: base, delta: feed + "/" + d.path, manifest: m, trusted: trusted, temporaryFolder: temporaryFolder)
            }
            report.checkedFiles += 1
        }
        return report
    }

    /// The delta applied to its base as a follower applies it (base checksum and size, the
    /// patch, the result against the manifest), into a scratch file removed after.
    static func patchAsFollowers(base: CallDirIndex, delta: String, manifest: FeedManifest, trusted: [FeedPublicKey],
                                 temporaryFolder: String) throws {
        let output = temporaryFolder + "/calldir-verify-feed-\(Syscalls.processID)-\(manifest.serial).calldir"
        defer { _ = Syscalls.unlink(output) }
        try FeedFollower(trusted: trusted).patch(installed: base, deltaPath: delta, output: output,
                                                 temporaryFolder: temporaryFolder, source: delta)
        try FeedFollower.verify(try MappedFile(path: output), against: manifest)
    }

    static func mapped(_ feed: String, _ path: String, size: Int64, sha256: String) throws -> MappedFile {
        let full = feed + "/" + path
        guard Syscalls.exists(full) else { throw FeedError(.missing, "the manifest names this file and it is missing", path: full) }
        let file = try MappedFile(path: full)
        guard Int64(file.bytes.count) == size else {
            throw FeedError(.size, "\(file.bytes.count) bytes; the manifest announces \(size)", path: full)
        }
        let got = FeedFiles.sha256(file)
        guard got == sha256 else { throw FeedError(.digest, "SHA-256 \(got) differs from the manifest's \(sha256)", path: full) }
        return file
    }
}
