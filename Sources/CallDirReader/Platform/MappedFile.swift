/// A read-only memory mapping of a whole file, unmapped on deinit. Pages are loaded on first
/// touch, so opening a large index costs nothing until it is read.
public final class MappedFile: @unchecked Sendable {  // immutable after init
    /// The file's path.
    public let path: String
    package let bytes: UnsafeRawBufferPointer
    /// False for borrowed bytes, which deinit must not unmap.
    private let isMapped: Bool
    /// True for a mapping of a file, whose pages `release` may drop (they reload from the
    /// file); false for a private copy or borrowed bytes, whose pages would come back as zeros.
    private let isFileMapping: Bool

    /// Maps the regular file at `path` read-only (`.io` when it cannot).
    public convenience init(path: String) throws {
        let (fd, size) = try MappedFile.openRegular(path)
        defer { Syscalls.close(fd) }
        try self.init(fd: fd, length: size, path: path)
    }

    /// Reads the whole file at `path` into private memory instead of mapping it: the daemon's
    /// copy, which a file truncated or rewritten in place afterwards cannot change or take
    /// away (a shared mapping of a truncated file faults with SIGBUS on the pages past the new
    /// end). Costs one read of the file and its size in anonymous memory. The index header is
    /// read and checked first, its file size against the file's: any other file (a 3 GiB
    /// sparse one) is refused after 64 bytes, and no more than the header says is ever read;
    /// then the trailer and the section table (`checkEnds`), so that a header forged to match
    /// a huge file's size is refused before its body is read.
    /// Throws when the file is not a regular file, or changes size while it is read.
    package init(copying path: String) throws {
        let (fd, size) = try MappedFile.openRegular(path)
        defer { Syscalls.close(fd) }
        self.path = path
        isMapped = true
        isFileMapping = false
        var header = [UInt8](repeating: 0, count: IndexFormat.headerSize)
        let headerCount = try header.withUnsafeMutableBytes { try MappedFile.readFully(fd, into: $0, path: path) }
        let decoded = try header.withUnsafeBytes {
            try FileHeader.decode(UnsafeRawBufferPointer(rebasing: $0.prefix(headerCount)), fileSize: size, path: path)
        }
        try MappedFile.checkEnds(fd, header: decoded, size: size, path: path)
        let memory: UnsafeMutableRawPointer
        switch Syscalls.mapAnonymous(length: size, path: path) {
        case .success(let address): memory = address
        case .failure(let error): throw CallDirError(.io, "cannot allocate \(size) bytes for the index: \(error.text)", path: path)
        }
        memory.copyMemory(from: header, byteCount: headerCount)
        var done = headerCount
        var extra: UInt8 = 0
        do {
            while done < size {
                let buffer = UnsafeMutableRawBufferPointer(start: memory + done, count: min(size - done, 1 << 24))
                switch Syscalls.read(fd, into: buffer, path: path) {
                case .success(0): throw CallDirError(.io, "the file shrank from \(size) to \(done) bytes while it was read "
                                                     + "(rewritten in place?)", path: path)
                case .success(let n): done += n
                case .failure(let error): throw CallDirError(.io, "cannot read index: \(error.text)", path: path)
                }
            }
            let more = withUnsafeMutableBytes(of: &extra) { Syscalls.read(fd, into: $0, path: path) }
            if case .success(let n) = more, n > 0 {
                throw CallDirError(.io, "the file grew past \(size) bytes while it was read (rewritten in place?)", path: path)
            }
        } catch {
            Syscalls.unmap(memory, length: size)
            throw error
        }
        Syscalls.protectReadOnly(memory, length: size)
        bytes = UnsafeRawBufferPointer(start: memory, count: size)
    }

    /// The trailer's magic and zero word, and the section table's bounds and CRC, read where
    /// they lie (at most 32 KiB): what `SectionTable.read` checks first once the file is in memory.
    private static func checkEnds(_ fd: Int32, header: FileHeader, size: Int, path: String) throws {
        func read(_ count: Int, at offset: Int) throws -> [UInt8] {
            var buffer = [UInt8](repeating: 0, count: count)
            let result = buffer.withUnsafeMutableBytes { Syscalls.read(fd, into: $0, at: offset, path: path) }
            switch result {
            case .success(count): return buffer
            case .success(let n): throw CallDirError(.io, "the file ended at \(offset + n) bytes, its size was \(size)", path: path)
            case .failure(let error): throw CallDirError(.io, "cannot read index: \(error.text)", path: path)
            }
        }
        let trailerStart = size - IndexFormat.trailerSize
        guard trailerStart >= IndexFormat.headerSize else { throw CallDirError(.corruptIndex, "file too short for its trailer", path: path) }
        let trailer = try read(IndexFormat.trailerSize, at: trailerStart)
        guard trailer[8...].elementsEqual(IndexFormat.trailerMagic), trailer[4..<8].allSatisfy({ $0 == 0 }) else {
            throw CallDirError(.corruptIndex, "trailer missing: the file is truncated or was not completely written "
                               + "(checked before reading its \(size) bytes)", path: path, offset: trailerStart)
        }
        let tableLength = header.sectionCount * IndexFormat.sectionEntrySize
        guard header.sectionCount <= 1024, header.sectionTableOffset >= IndexFormat.headerSize,
              tableLength <= trailerStart, header.sectionTableOffset <= trailerStart - tableLength else {
            throw CallDirError(.corruptIndex, "section table out of bounds", path: path, offset: header.sectionTableOffset)
        }
        let table = try read(tableLength, at: header.sectionTableOffset)
        guard table.withUnsafeBytes({ Checksum.crc32($0) }) == header.sectionTableCRC else {
            throw CallDirError(.corruptIndex, "section table checksum mismatch", path: path, offset: header.sectionTableOffset)
        }
    }

    /// Reads until `buffer` is full or the file ends; how many bytes were read.
    private static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws -> Int {
        var done = 0
        while done < buffer.count {
            switch Syscalls.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), path: path) {
            case .success(0): return done
            case .success(let n): done += n
            case .failure(let error): throw CallDirError(.io, "cannot read index: \(error.text)", path: path)
            }
        }
        return done
    }

    /// Opens `path` without blocking (a FIFO there must not hang) and checks it is a regular
    /// file; returns the descriptor and the file's size.
    private static func openRegular(_ path: String) throws -> (fd: Int32, size: Int) {
        let fd: Int32
        switch Syscalls.openReadOnlyNonBlocking(path) {
        case .success(let opened): fd = opened
        case .failure(let error):
            let reason = error.isNoSuchFile ? "no index file here (compile one with `calldir compile`)" : error.text
            throw CallDirError(.io, "cannot open index: \(reason)", path: path)
        }
        switch Syscalls.kind(fd) {
        case .success(.regular(let size)): return (fd, size)
        case .success(let kind):
            Syscalls.close(fd)
            throw CallDirError(.io, "\(kind.name), not a regular file: an index or delta is read from a regular file", path: path)
        case .failure(let error):
            Syscalls.close(fd)
            throw CallDirError(.io, "cannot stat index: \(error.text)", path: path)
        }
    }

    /// Maps `length` bytes of an open descriptor (the writer maps what it wrote, to read it back).
    package init(fd: Int32, length: Int, path: String) throws {
        self.path = path
        isMapped = true
        isFileMapping = true
        if length == 0 {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        switch Syscalls.mapReadOnly(fd, length: length, path: path) {
        case .success(let address): bytes = UnsafeRawBufferPointer(start: address, count: length)
        case .failure(let error): throw CallDirError(.io, "cannot map index: \(error.text)", path: path)
        }
    }

    /// Reads `bytes` in place as an index file (the fuzzers open inputs so, without a file). The
    /// caller keeps them alive and unchanged for the lifetime of this object.
    package init(borrowing bytes: UnsafeRawBufferPointer, path: String) {
        self.path = path
        self.bytes = bytes
        isMapped = false
        isFileMapping = false
    }

    /// Size of the file in bytes.
    public var count: Int { bytes.count }

    /// Tells the kernel a region will not be needed again soon: drops it from resident memory,
    /// so a sequential pass over a large file keeps a small footprint.
    /// A no-op on a private copy or borrowed bytes (MADV_DONTNEED would zero them).
    package func release(_ range: Range<Int>) {
        guard isFileMapping, let base = bytes.baseAddress, !range.isEmpty else { return }
        let page = Syscalls.pageSize
        let start = range.lowerBound / page * page
        let end = range.upperBound / page * page
        guard end > start else { return }
        Syscalls.releasePages(base + start, length: end - start)
    }

    deinit {
        if isMapped, let base = bytes.baseAddress { Syscalls.unmap(base, length: bytes.count) }
    }
}
