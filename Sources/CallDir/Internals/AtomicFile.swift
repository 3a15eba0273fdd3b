#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CallDirReader

/// A file written in full under a temporary name in the destination's folder, then published
/// by fsync + rename + fsync of the folder. Until `publish()`, the destination is untouched;
/// `discard()` (or a failure) removes the temporary file.
///
/// Writes are buffered; `write(at:)` patches bytes already written (the header is written last).
final class AtomicFile {
    let destination: String
    let temporaryPath: String
    private var fd: Int32
    private var buffer: [UInt8] = []
    private let bufferLimit = 1 << 20
    /// Bytes handed to `append` so far (the file offset of the next append).
    private(set) var length = 0

    init(destination: String) throws {
        self.destination = destination
        let folder = AtomicFile.folder(of: destination)
        let base = destination.split(separator: "/").last.map(String.init) ?? "index"
        var template = Array("\(folder)/.\(base).tmp.XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw CallDirError(.io, "cannot create a temporary file in \(folder): \(errnoText())", path: destination)
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
        try flush()
        guard fsync(fd) == 0 else { throw ioError("fsync") }
        close(fd)
        fd = -1
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
        CallDirError(.io, "\(what) failed while writing the index: \(errnoText())", path: destination)
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

func errnoText() -> String { String(cString: strerror(errno)) }
