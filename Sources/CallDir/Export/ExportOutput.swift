import CallDirReader
import CallDirWriter

/// Where an export goes: a file published atomically (`AtomicFile`: temp, fsync, rename), or
/// standard output (`nil` or `-`), buffered. Every write error is thrown, stdout's included:
/// a full disk or a closed pipe must not look like a finished export.
final class ExportOutput {
    private let file: AtomicFile?
    private let name: String
    private var buffer: [UInt8] = []
    private let bufferLimit = 1 << 16
    private(set) var bytes = 0

    init(path: String?) throws {
        if let path, path != "-" {
            file = try AtomicFile(destination: path)
            name = path
        } else {
            file = nil
            name = "<stdout>"
        }
        buffer.reserveCapacity(bufferLimit)
    }

    func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    func write(_ raw: UnsafeRawBufferPointer) throws {
        bytes += raw.count
        buffer.append(contentsOf: raw)
        if buffer.count >= bufferLimit { try flush() }
    }

    func write(_ raw: [UInt8]) throws {
        try raw.withUnsafeBytes { try write($0) }
    }

    /// Writes what is buffered and publishes the file (or flushes stdout).
    func finish() throws {
        try flush()
        try file?.publish()
    }

    /// Leaves any existing destination as it was.
    func discard() { file?.discard() }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        if let file { return try buffer.withUnsafeBytes { try file.append($0) } }
        let written = buffer.withUnsafeBytes { Syscalls.writeAll(1, $0, path: name) }
        if case .failure(let error) = written {
            throw CallDirError(.io, "cannot write the export to standard output: \(error.text)", path: name)
        }
    }
}
