import Glibc
import CallDirReader

/// The one seam through which the library opens, inspects, reads and closes input files.
///
/// Everything that reads a list goes through `InputFile`, so there is exactly one place that
/// knows about descriptors, `errno` and `EINTR`. The path `-` means standard input (fd 0),
/// which is never closed by the library.
struct InputFile {
    /// The path that means standard input.
    static let standardInputPath = "-"

    let descriptor: Int32
    /// How diagnostics name the file: its path, or `<stdin>`.
    let name: String
    /// Whether `close()` closes the descriptor (false for stdin and borrowed descriptors).
    let ownsDescriptor: Bool

    /// Wraps a descriptor the caller opened (a pipe, a socket, stdin).
    init(descriptor: Int32, name: String, ownsDescriptor: Bool) {
        self.descriptor = descriptor
        self.name = name
        self.ownsDescriptor = ownsDescriptor
    }

    /// Opens `path` for reading; `-` is standard input. Directories are refused here, so the
    /// error says what is wrong instead of a later "Is a directory" from `read`.
    static func open(path: String) throws -> InputFile {
        if path == standardInputPath {
            return InputFile(descriptor: 0, name: "<stdin>", ownsDescriptor: false)
        }
        var fd: Int32
        repeat {
            fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        } while fd < 0 && errno == EINTR
        if fd < 0 {
            let reason = errnoDescription()
            throw CallDirError(.io, "cannot open for reading: \(reason); check the path and its permissions",
                               path: path)
        }
        let file = InputFile(descriptor: fd, name: path, ownsDescriptor: true)
        if try file.isDirectory() {
            file.close()
            throw CallDirError(.io, "is a directory; give the path of a list file", path: path)
        }
        return file
    }

    /// Whether the descriptor refers to a directory (`fstat`).
    func isDirectory() throws -> Bool {
        var info = stat()
        if fstat(descriptor, &info) != 0 {
            throw CallDirError(.io, "cannot inspect the file: \(Self.errnoDescription())", path: name)
        }
        // S_IFMT / S_IFDIR are nested macros that Swift does not import.
        return info.st_mode & 0o170000 == 0o040000
    }

    /// Reads up to `buffer.count` bytes; returns 0 only at end of file. Retries on `EINTR`.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let n = Glibc.read(descriptor, base, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw CallDirError(.io, "cannot read: \(Self.errnoDescription()); check that the file is readable",
                               path: name)
        }
    }

    /// Closes the descriptor if this value owns it. Errors from `close` on a read-only
    /// descriptor lose no data, so they are ignored.
    func close() {
        if ownsDescriptor { _ = Glibc.close(descriptor) }
    }

    private static func errnoDescription() -> String {
        let code = errno
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
