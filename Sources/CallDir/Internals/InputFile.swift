import CallDirReader

/// The one seam through which the library opens, inspects, reads and closes input files.
///
/// Everything that reads a list goes through `InputFile`, and `InputFile` through `Syscalls`
/// (errno, `EINTR`, injected faults). The path `-` means standard input (fd 0),
/// which is never closed by the library. Tests and fuzzing read bytes in memory through the
/// same type (`init(bytes:name:)`), so everything above the read call is the production path.
struct InputFile {
    /// The path that means standard input.
    static let standardInputPath = "-"

    let descriptor: Int32
    /// How diagnostics name the file: its path, or `<stdin>`.
    let name: String
    /// Whether `close()` closes the descriptor (false for stdin and borrowed descriptors).
    let ownsDescriptor: Bool
    /// The bytes read instead of a descriptor (which is then -1).
    private let memory: MemoryFile?

    /// Wraps a descriptor the caller opened (a pipe, a socket, stdin).
    init(descriptor: Int32, name: String, ownsDescriptor: Bool) {
        self.descriptor = descriptor
        self.name = name
        self.ownsDescriptor = ownsDescriptor
        memory = nil
    }

    /// Reads `bytes` as if they were a file's contents.
    init(bytes: [UInt8], name: String) {
        descriptor = -1
        self.name = name
        ownsDescriptor = false
        memory = MemoryFile(bytes: bytes)
    }

    /// Opens `path` for reading; `-` is standard input. Directories are refused here, so the
    /// error says what is wrong instead of a later "Is a directory" from `read`.
    static func open(path: String) throws -> InputFile {
        if path == standardInputPath {
            return InputFile(descriptor: 0, name: "<stdin>", ownsDescriptor: false)
        }
        let fd: Int32
        switch Syscalls.openReadOnly(path) {
        case .success(let opened): fd = opened
        case .failure(let error):
            throw CallDirError(.io, "cannot open for reading: \(error.text); check the path and its permissions",
                               path: path)
        }
        let file = InputFile(descriptor: fd, name: path, ownsDescriptor: true)
        let isDirectory: Bool
        do { isDirectory = try file.isDirectory() } catch { file.close(); throw error }
        if isDirectory {
            file.close()
            throw CallDirError(.io, "is a directory; give the path of a list file", path: path)
        }
        return file
    }

    /// Whether the descriptor refers to a directory (`fstat`).
    func isDirectory() throws -> Bool {
        switch Syscalls.isFolder(descriptor) {
        case .success(let isFolder): return isFolder
        case .failure(let error): throw CallDirError(.io, "cannot inspect the file: \(error.text)", path: name)
        }
    }

    /// Reads up to `buffer.count` bytes; returns 0 only at end of file.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let memory { return memory.read(into: buffer) }
        switch Syscalls.read(descriptor, into: buffer, path: name) {
        case .success(let count): return count
        case .failure(let error):
            throw CallDirError(.io, "cannot read: \(error.text); check that the file is readable", path: name)
        }
    }

    /// Closes the descriptor if this value owns it. Errors from `close` on a read-only
    /// descriptor lose no data, so they are ignored.
    func close() {
        if ownsDescriptor { Syscalls.close(descriptor) }
    }
}

/// The read position over an `InputFile`'s bytes in memory.
private final class MemoryFile {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, bytes.count - position)
        if count > 0 {
            bytes.withUnsafeBytes { all in
                buffer.baseAddress!.copyMemory(from: all.baseAddress! + position, byteCount: count)
            }
            position += count
        }
        return count
    }
}
