import CallDirReader

/// The spill file format, private to one sort: records in sorted order, each a 20-byte header
/// (number i64, origin u64, label length u32, all little-endian; length 0xFFFF_FFFF means no
/// label) followed by the label bytes. No file header: a run is only read by the sorter that
/// wrote it, and a truncated record is reported as an I/O error.
enum SpillFormat {
    static let headerSize = 20
    static let noLabel = UInt32.max
}

/// Writes one run through a 1 MiB buffer.
final class RunWriter {
    let path: String
    private var fd: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    // `@exclusivity(unchecked)`: see RunReader.
    @exclusivity(unchecked) private var used = 0
    /// Bytes written to the file so far.
    @exclusivity(unchecked) private(set) var length = 0

    init(path: String, bufferSize: Int = 1 << 20) throws {
        self.path = path
        switch Syscalls.createExclusive(path, mode: 0o600) {
        case .success(let opened): fd = opened
        case .failure(let error): throw SpillFolder.ioError("cannot create spill file", error, path: path)
        }
        buffer = .allocate(byteCount: max(bufferSize, SpillFormat.headerSize), alignment: 8)
    }

    deinit {
        if fd >= 0 { Syscalls.close(fd) }
        buffer.deallocate()
    }

    func append(number: Int64, origin: UInt64, label: UnsafeRawBufferPointer?) throws {
        let labelLength = label?.count ?? 0
        if used + SpillFormat.headerSize + labelLength > buffer.count { try flush() }
        buffer.storeBytes(of: number.littleEndian, toByteOffset: used, as: Int64.self)
        buffer.storeBytes(of: origin.littleEndian, toByteOffset: used + 8, as: UInt64.self)
        let lengthField = label == nil ? SpillFormat.noLabel : UInt32(labelLength)
        buffer.storeBytes(of: lengthField.littleEndian, toByteOffset: used + 16, as: UInt32.self)
        used += SpillFormat.headerSize
        guard let label, labelLength > 0 else { return }
        if used + labelLength <= buffer.count {
            (buffer.baseAddress! + used).copyMemory(from: label.baseAddress!, byteCount: labelLength)
            used += labelLength
        } else {  // a label larger than the buffer: write it directly
            try flush()
            try writeAll(label)
        }
    }

    /// Writes what is buffered and closes the file.
    func finish() throws {
        try flush()
        let result = Syscalls.closeAfterWriting(fd, path: path)
        fd = -1
        if case .failure(let error) = result { throw SpillFolder.ioError("cannot close spill file", error, path: path) }
    }

    private func flush() throws {
        guard used > 0 else { return }
        try writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<used]))
        used = 0
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        if case .failure(let error) = Syscalls.writeAll(fd, bytes, path: path) {
            throw SpillFolder.ioError("cannot write spill file", error, path: path)
        }
        length += bytes.count
    }
}
