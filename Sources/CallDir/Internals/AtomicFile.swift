#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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

    init(destination: String, role: String = "the index") throws {
        self.destination = destination
        self.role = role
        let folder = AtomicFile.folder(of: destination)
        let base = destination.split(separator: "/").last.map(String.init) ?? "index"
        var template = Array(StaleTemporaries.fileTemplate(folder: folder, destinationName: base).utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            let reason = errnoText()
            throw CallDirError(.io, "cannot create a temporary file in \(folder) for \(role): "
                                   + "\(reason); check that the folder exists and is writable", path: destination)
        }
        self.fd = fd
        self.temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        TemporaryFiles.register(temporaryPath)
        fchmod(fd, 0o644)
        buffer.reserveCapacity(bufferLimit)
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
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        guard written == bytes.count else { throw ioError("write") }
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
        guard fsync(fd) == 0 else { throw ioError("fsync") }
        let closed = close(fd)
        fd = -1
        guard closed == 0 else { throw ioError("close") }  // NFS reports a failed write here
    }

    /// Renames the prepared file over the destination and syncs the folder.
    func commit() throws {
        precondition(fd < 0, "AtomicFile: commit() before prepare()")
        guard rename(temporaryPath, destination) == 0 else { throw ioError("rename") }
        TemporaryFiles.unregister(temporaryPath)
        let dirFD = open(AtomicFile.folder(of: destination), O_RDONLY | O_DIRECTORY)
        if dirFD >= 0 { fsync(dirFD); close(dirFD) }
    }

    /// Removes the temporary file; the destination is left as it was.
    func discard() {
        if fd >= 0 { close(fd); fd = -1; unlink(temporaryPath) } else if access(temporaryPath, F_OK) == 0 {
            unlink(temporaryPath)
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
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw ioError("write")
            }
            done += n
        }
    }

    private func ioError(_ what: String) -> CallDirError {
        let reason = errnoText()
        return CallDirError(.io, "\(what) failed while writing \(role): \(reason); "
                         + "nothing was published (free space, or check the folder's permissions)", path: destination)
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

func errnoText() -> String { String(cString: strerror(errno)) }
