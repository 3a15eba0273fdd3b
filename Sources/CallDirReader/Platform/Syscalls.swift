#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The reader's only door to the operating system: every libc call of the reader library
/// goes through here, so porting it (Linux, Darwin/iOS) touches this one file, and a test
/// (`PlatformSeamTests`) fails when another file of the reader imports a C library itself.
package enum Syscalls {
    /// Opens `path` read-only; returns the descriptor or the failure's errno.
    package static func openReadOnly(_ path: String) -> Result<Int32, SystemError> {
        while true {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { return .success(fd) }
            if errno != EINTR { return .failure(.current()) }
        }
    }

    package static func close(_ fd: Int32) { _ = systemClose(fd) }

    /// Size of the file behind `fd` when it is a regular file; nil for anything else.
    package static func regularFileSize(_ fd: Int32) -> Result<Int?, SystemError> {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.current()) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .success(nil) }
        return .success(Int(info.st_size))
    }

    /// Maps `length` bytes of `fd` read-only and shared.
    package static func mapReadOnly(_ fd: Int32, length: Int) -> Result<UnsafeRawPointer, SystemError> {
        guard let address = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0), address != MAP_FAILED else {
            return .failure(.current())
        }
        return .success(UnsafeRawPointer(address))
    }

    package static func unmap(_ address: UnsafeRawPointer, length: Int) {
        munmap(UnsafeMutableRawPointer(mutating: address), length)
    }

    /// Drops whole pages of a read-only mapping from resident memory (they reload on touch).
    package static func releasePages(_ address: UnsafeRawPointer, length: Int) {
        _ = madvise(UnsafeMutableRawPointer(mutating: address), length, Int32(MADV_DONTNEED))
    }

    package static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// An errno value with its text.
package struct SystemError: Error, Equatable {
    package var code: Int32

    package static func current() -> SystemError { SystemError(code: errno) }

    package var isNoSuchFile: Bool { code == ENOENT }

    package var text: String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}

private func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
    return Darwin.close(fd)
    #else
    return Glibc.close(fd)
    #endif
}
