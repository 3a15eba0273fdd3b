import CallDirReader

/// Reads one run back, one record at a time, through a buffer of a chosen size (grown when a
/// single record is larger). The current record's label points into the buffer and stays valid
/// until the next call to `next()`.
final class RunReader {
    let path: String
    private var fd: Int32
    // `@exclusivity(unchecked)`: hot per-record state, used by one owner on one thread and never
    // passed inout. With the runtime checks a 10M-record sort took 1.8 s instead of 1.0 s.
    @exclusivity(unchecked) private var buffer: UnsafeMutableRawBufferPointer
    @exclusivity(unchecked) private var start = 0  // unread bytes are buffer[start..<end]
    @exclusivity(unchecked) private var end = 0
    @exclusivity(unchecked) private var atEndOfFile = false
    @exclusivity(unchecked) private(set) var number: Int64 = 0
    @exclusivity(unchecked) private(set) var origin: UInt64 = 0
    @exclusivity(unchecked) private var labelStart = 0
    @exclusivity(unchecked) private var labelLength = -1  // -1: no label

    init(path: String, bufferSize: Int) throws {
        self.path = path
        switch Syscalls.openReadOnly(path) {
        case .success(let opened): fd = opened
        case .failure(let error): throw SpillFolder.ioError("cannot open spill file", error, path: path)
        }
        buffer = .allocate(byteCount: max(bufferSize, SpillFormat.headerSize), alignment: 8)
    }

    deinit {
        if fd >= 0 { Syscalls.close(fd) }
        buffer.deallocate()
    }

    var label: UnsafeRawBufferPointer? {
        guard labelLength >= 0 else { return nil }
        return UnsafeRawBufferPointer(rebasing: buffer[labelStart..<labelStart + labelLength])
    }

    /// Loads the next record; false at the end of the run.
    func next() throws -> Bool {
        guard try fill(atLeast: SpillFormat.headerSize) else { return false }
        let header = buffer.baseAddress! + start
        let lengthField = UInt32(littleEndian: header.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
        let labelBytes = lengthField == SpillFormat.noLabel ? 0 : Int(lengthField)
        let size = SpillFormat.headerSize + labelBytes
        guard try fill(atLeast: size) else { throw truncated() }
        let record = buffer.baseAddress! + start  // `fill` may have moved the bytes
        number = Int64(littleEndian: record.loadUnaligned(as: Int64.self))
        origin = UInt64(littleEndian: record.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        labelStart = start + SpillFormat.headerSize
        labelLength = lengthField == SpillFormat.noLabel ? -1 : labelBytes
        start += size
        return true
    }

    /// Makes `count` unread bytes available at `start`. False only when the run is exhausted
    /// (no unread byte at all); throws when it ends inside a record.
    private func fill(atLeast count: Int) throws -> Bool {
        if end - start >= count { return true }
        if start > 0 {  // move the unread tail to the front
            let unread = end - start
            if unread > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: unread) }
            start = 0
            end = unread
        }
        if count > buffer.count { grow(to: count) }
        while end < count && !atEndOfFile {
            let n: Int
            switch Syscalls.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...]), path: path) {
            case .success(let count): n = count
            case .failure(let error): throw SpillFolder.ioError("cannot read spill file", error, path: path)
            }
            if n == 0 { atEndOfFile = true }
            end += n
        }
        if end >= count { return true }
        if end == 0 { return false }
        throw truncated()
    }

    private func grow(to size: Int) {
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 8)
        if end > 0 { larger.baseAddress!.copyMemory(from: buffer.baseAddress!, byteCount: end) }
        buffer.deallocate()
        buffer = larger
    }

    private func truncated() -> CallDirError {
        CallDirError(.io, "spill file ends inside a record; was it changed or removed while sorting? "
                         + "Run the compile again", path: path)
    }
}
