#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only memory mapping of a whole file, unmapped on deinit. Pages are loaded on first
/// touch, so opening a large index costs nothing until it is read.
public final class MappedFile: @unchecked Sendable {  // immutable after init
    public let path: String
    public let bytes: UnsafeRawBufferPointer

    public convenience init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno == ENOENT ? "no index file here (compile one with `calldir compile`)" : errnoText()
            throw CallDirError(.io, "cannot open index: \(reason)", path: path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw CallDirError(.io, "cannot stat index: \(errnoText())", path: path) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw CallDirError(.io, "not a regular file", path: path)
        }
        try self.init(fd: fd, length: Int(info.st_size), path: path)
    }

    init(fd: Int32, length: Int, path: String) throws {
        self.path = path
        if length == 0 {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        let address = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0)
        guard let address, address != MAP_FAILED else {
            throw CallDirError(.io, "cannot map index: \(errnoText())", path: path)
        }
        bytes = UnsafeRawBufferPointer(start: address, count: length)
    }

    /// Tells the kernel a region will not be needed again soon: drops it from resident memory,
    /// so a sequential pass over a large file keeps a small footprint.
    func release(_ range: Range<Int>) {
        guard let base = bytes.baseAddress, !range.isEmpty else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = range.lowerBound / page * page
        let end = range.upperBound / page * page
        guard end > start else { return }
        madvise(UnsafeMutableRawPointer(mutating: base + start), end - start, Int32(MADV_DONTNEED))
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }
}
