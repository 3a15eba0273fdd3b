/// A read-only memory mapping of a whole file, unmapped on deinit. Pages are loaded on first
/// touch, so opening a large index costs nothing until it is read.
public final class MappedFile: @unchecked Sendable {  // immutable after init
    public let path: String
    package let bytes: UnsafeRawBufferPointer
    /// False for borrowed bytes, which deinit must not unmap.
    private let isMapped: Bool

    public convenience init(path: String) throws {
        let fd: Int32
        switch Syscalls.openReadOnly(path) {
        case .success(let opened): fd = opened
        case .failure(let error):
            let reason = error.isNoSuchFile ? "no index file here (compile one with `calldir compile`)" : error.text
            throw CallDirError(.io, "cannot open index: \(reason)", path: path)
        }
        defer { Syscalls.close(fd) }
        switch Syscalls.regularFileSize(fd) {
        case .failure(let error): throw CallDirError(.io, "cannot stat index: \(error.text)", path: path)
        case .success(nil): throw CallDirError(.io, "not a regular file", path: path)
        case .success(let size?): try self.init(fd: fd, length: size, path: path)
        }
    }

    /// Maps `length` bytes of an open descriptor (the writer maps what it wrote, to read it back).
    package init(fd: Int32, length: Int, path: String) throws {
        self.path = path
        isMapped = true
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
    }

    /// Size of the file in bytes.
    public var count: Int { bytes.count }

    /// Tells the kernel a region will not be needed again soon: drops it from resident memory,
    /// so a sequential pass over a large file keeps a small footprint.
    package func release(_ range: Range<Int>) {
        guard let base = bytes.baseAddress, !range.isEmpty else { return }
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
