import CallDirReader

/// A file written in full under a temporary name in the destination's folder, then published
/// by fsync + rename + fsync of the folder. Until `publish()`, the destination is untouched;
/// `discard()` (or a failure) removes the temporary file. The temporary name carries our PID
/// (`StaleTemporaries`), so a later compile removes it if we are killed before cleaning up.
///
/// Publishing is two steps so that several outputs can be made durable first and renamed
/// only once all of them are complete: `prepare()` (flush, fsync, close) then `commit()`.
///
/// Writes are buffered; `write(at:)` patches bytes already written (the header is written last).
final class AtomicFile {
    let destination: String
    /// What the file is, for messages: "the index", "the rejects list".
    let role: String
    let temporaryPath: String
    private var fd: Int32
    private var buffer: [UInt8] = []
    private let bufferLimit = 1 << 20
    /// Bytes handed to `append` so far (the file offset of the next append).
    private(set) var length = 0
    /// A nameless scratch file (`init(unnamedIn:)`): never fsynced, renamed or unlinked.
    private let unnamed: Bool

    init(destination: String, role: String = "the index") throws {
        self.destination = destination
        self.role = role
        let folder = AtomicFile.folder(of: destination)
        let base = destination.split(separator: "/").last.map(String.init) ?? "index"
        let template = StaleTemporaries.fileTemplate(folder: folder, destinationName: base)
        switch Syscalls.makeTemporaryFile(template: template, mode: 0o644) {
        case .success(let created):
            fd = created.fd
            temporaryPath = created.path
        case .failure(let error):
            throw CallDirError(.io, "cannot create a temporary file in \(folder) for \(role): "
                                   + "\(error.text); check that the folder exists and is writable", path: destination)
        }
        TemporaryFiles.register(temporaryPath)
        buffer.reserveCapacity(bufferLimit)
        unnamed = false
    }

    /// A scratch file that is never published (`compile --check`): written and read back like
    /// any other, but nameless (`Syscalls.makeUnnamedFile` in `folder`), so nothing is left
    /// behind whatever happens. `destination` only names it in messages; `commit()` is refused.
    init(unnamedIn folder: String, destination: String, role: String = "the index") throws {
        self.destination = destination
        self.role = role
        temporaryPath = folder
        let template = StaleTemporaries.fileTemplate(folder: folder, destinationName: "check")
        switch Syscalls.makeUnnamedFile(folder: folder, fallbackTemplate: template) {
        case .success(let created): fd = created
        case .failure(let error):
            throw CallDirError(.io, "cannot create a scratch file in \(folder) for checking \(role): "
                                   + "\(error.text); pass a writable folder with --tmpdir", path: folder)
        }
        buffer.reserveCapacity(bufferLimit)
        unnamed = true
    }

    deinit { discard() }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        length += bytes.count
        if buffer.count + bytes.count > bufferLimit { try flush() }
        if bytes.count >= bufferLimit { try writeAll(bytes); return }
        buffer.append(contentsOf: bytes)
    }

    func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in try append(raw) }
    }

    /// Overwrites bytes at `offset` (which must already have been appended).
    func write(_ bytes: [UInt8], at offset: Int) throws {
        try flush()
        let written = bytes.withUnsafeBytes { Syscalls.writeAll(fd, $0, at: offset, path: temporaryPath) }
        try check(written, "write")
    }

    /// Makes the file durable and atomically replaces the destination.
    func publish() throws {
        try prepare()
        try commit()
    }

    /// Writes what is buffered and makes the temporary file durable; nothing is published yet.
    /// After it, only `commit()` or `discard()`.
    func prepare() throws {
        try flush()
        if unnamed { return }  // nothing to make durable: it stays open until `discard()`
        try check(Syscalls.fsync(fd, path: temporaryPath), "fsync")
        let closed = Syscalls.closeAfterWriting(fd, path: temporaryPath)
        fd = -1
        try check(closed, "close")
    }

    /// Renames the prepared file over the destination and syncs the folder.
    func commit() throws {
        precondition(!unnamed, "AtomicFile: an unnamed scratch file is never published")
        precondition(fd < 0, "AtomicFile: commit() before prepare()")
        try check(Syscalls.rename(temporaryPath, to: destination), "rename")
        TemporaryFiles.unregister(temporaryPath)
        let folder = AtomicFile.folder(of: destination)
        if case .success(let dirFD) = Syscalls.openFolder(folder) {
            _ = Syscalls.fsync(dirFD, path: folder)
            Syscalls.close(dirFD)
        }
    }

    /// Removes the temporary file; the destination is left as it was.
    func discard() {
        if unnamed {
            if fd >= 0 { Syscalls.close(fd) }
            fd = -1
            return
        }
        if fd >= 0 {
            Syscalls.close(fd)
            fd = -1
            Syscalls.unlink(temporaryPath)
        } else if Syscalls.exists(temporaryPath) {
            Syscalls.unlink(temporaryPath)
        }
        TemporaryFiles.unregister(temporaryPath)
    }

    /// Maps what has been written so far, for a read-back pass before publishing.
    func mapWritten() throws -> MappedFile {
        try flush()
        return try MappedFile(fd: fd, length: length, path: temporaryPath)
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { raw in try writeAll(raw) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        try check(Syscalls.writeAll(fd, bytes, path: temporaryPath), "write")
    }

    private func check(_ result: Result<Void, SystemError>, _ what: String) throws {
        guard case .failure(let error) = result else { return }
        throw CallDirError(.io, "\(what) failed while writing \(role): \(error.text); "
                         + "nothing was published (free space, or check the folder's permissions)", path: destination)
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// A small text output written whole and published like every other output (temporary file,
/// fsync, rename): the CLI's reports such as `compile --error-file`.
public enum AtomicText {
    public static func publish(_ text: String, to path: String, role: String) throws {
        let file = try AtomicFile(destination: path, role: role)
        do {
            var text = text
            try text.withUTF8 { try file.append(UnsafeRawBufferPointer($0)) }
            try file.publish()
        } catch {
            file.discard()
            throw error
        }
    }
}
