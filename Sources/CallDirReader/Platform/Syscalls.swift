#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The package's only door to the file system: every libc call of the reader, and every file
/// call of the compiler (inputs, outputs, spill files, temporaries), goes through here. So a
/// port (Linux, Darwin/iOS) touches this one file, `PlatformSeamTests` fails when another file
/// of the reader imports a C library, and tests inject faults (`inject`) without `ulimit`.
///
/// Calls are per buffer, never per byte. In debug builds each checks the fault table first
/// (one uncontended lock), which is what lets a test make a chosen call fail on a chosen path;
/// release builds compile no fault injection (`FaultInjection.swift`).
/// Results carry the errno (`SystemError`); `EINTR` is retried here, never by callers.
package enum Syscalls {
    // MARK: Opening and closing

    /// Opens `path` read-only; returns the descriptor or the failure's errno.
    package static func openReadOnly(_ path: String) -> Result<Int32, SystemError> {
        open(path, flags: O_RDONLY | O_CLOEXEC, call: .open)
    }

    /// Opens `path` read-only without waiting: a FIFO or a device at the path opens at once
    /// instead of blocking until a writer appears (an index, a delta: check `kind` next and
    /// refuse anything that is not a regular file).
    package static func openReadOnlyNonBlocking(_ path: String) -> Result<Int32, SystemError> {
        open(path, flags: O_RDONLY | O_NONBLOCK | O_CLOEXEC, call: .open)
    }

    /// Opens an existing `path` for writing without creating or truncating it (an output
    /// that is a device or a FIFO; a FIFO's open waits for a reader, as a shell's `>` does).
    package static func openExistingForWriting(_ path: String) -> Result<Int32, SystemError> {
        open(path, flags: O_WRONLY | O_NOCTTY | O_CLOEXEC, call: .open)
    }

    /// Creates `path`, which must not exist, for writing (a spill file).
    package static func createExclusive(_ path: String, mode: UInt32) -> Result<Int32, SystemError> {
        open(path, flags: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: mode, call: .open)
    }

    /// Opens a folder, to fsync it after a rename.
    package static func openFolder(_ path: String) -> Result<Int32, SystemError> {
        open(path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, call: .open)
    }

    private static func open(_ path: String, flags: Int32, mode: UInt32 = 0, call: SystemCall) -> Result<Int32, SystemError> {
        if let fault = injectedFailure(call, path: path) { return .failure(fault) }
        while true {
            let fd = systemOpen(path, flags, mode_t(mode))
            if fd >= 0 { return .success(fd) }
            if errno != EINTR { return .failure(.current()) }
        }
    }

    /// Creates a file from a mkstemp template (ending in XXXXXX) with `mode`; returns its
    /// descriptor and actual path.
    package static func makeTemporaryFile(template: String, mode: UInt32) -> Result<(fd: Int32, path: String), SystemError> {
        if let fault = injectedFailure(.open, path: template) { return .failure(fault) }
        var bytes = Array(template.utf8CString)
        let fd = bytes.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return .failure(.current()) }
        fchmod(fd, mode_t(mode))
        return .success((fd, bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }))
    }

    /// Creates a file no other process can see, for reading and writing: `O_TMPFILE` in
    /// `folder` where the kernel and file system have it (the file never has a name, and
    /// disappears with its last descriptor, even after kill -9), else a file made from the
    /// mkstemp `fallbackTemplate` and unlinked at once.
    package static func makeUnnamedFile(folder: String, fallbackTemplate: String) -> Result<Int32, SystemError> {
        if let fault = injectedFailure(.open, path: folder) { return .failure(fault) }
        #if os(Linux)
        let fd = systemOpen(folder, O_RDWR | O_DIRECTORY | 0o20000000 | O_CLOEXEC, 0o600)  // O_TMPFILE
        if fd >= 0 { return .success(fd) }
        guard errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL else { return .failure(.current()) }
        #endif
        var bytes = Array(fallbackTemplate.utf8CString)
        let made = bytes.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard made >= 0 else { return .failure(.current()) }
        _ = bytes.withUnsafeBufferPointer { systemUnlink(String(cString: $0.baseAddress!)) }
        return .success(made)
    }

    /// Creates a private folder (0700) from a mkdtemp template; returns its path.
    package static func makeTemporaryFolder(template: String) -> Result<String, SystemError> {
        if let fault = injectedFailure(.mkdir, path: template) { return .failure(fault) }
        var bytes = Array(template.utf8CString)
        guard bytes.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { return .failure(.current()) }
        return .success(bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    /// Creates a folder with `mode` (the umask applies); success when it exists already.
    package static func makeFolder(_ path: String, mode: UInt32 = 0o755) -> Result<Void, SystemError> {
        if let fault = injectedFailure(.mkdir, path: path) { return .failure(fault) }
        if mkdir(path, mode_t(mode)) == 0 || errno == EEXIST { return .success(()) }
        return .failure(.current())
    }

    package static func close(_ fd: Int32) { _ = systemClose(fd) }

    /// Closes a descriptor that was written to: NFS reports a failed write only here.
    package static func closeAfterWriting(_ fd: Int32, path: String) -> Result<Void, SystemError> {
        if let fault = injectedFailure(.close, path: path) { _ = systemClose(fd); return .failure(fault) }
        return systemClose(fd) == 0 ? .success(()) : .failure(.current())
    }

    // MARK: Reading and writing

    /// Reads up to `buffer.count` bytes; 0 only at end of file. `path` names the file for
    /// fault injection.
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) -> Result<Int, SystemError> {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return .success(0) }
        if let fault = injectedFailure(.read, path: path) { return .failure(fault) }
        while true {
            let n = systemRead(fd, base, buffer.count)
            if n >= 0 { return .success(n) }
            if errno != EINTR { return .failure(.current()) }
        }
    }

    /// Reads up to `buffer.count` bytes at `offset` without moving the file offset (pread);
    /// fewer only at end of file.
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int,
                             path: String) -> Result<Int, SystemError> {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return .success(0) }
        if let fault = injectedFailure(.read, path: path) { return .failure(fault) }
        var done = 0
        while done < buffer.count {
            let n = pread(fd, base + done, buffer.count - done, off_t(offset + done))
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.current())
            }
            done += n
        }
        return .success(done)
    }

    /// Writes all of `bytes` (looping over short writes).
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) -> Result<Void, SystemError> {
        if let fault = injectedFailure(.write, path: path) { return .failure(fault) }
        var done = 0
        while done < bytes.count {
            let n = systemWrite(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.current())
            }
            done += n
        }
        return .success(())
    }

    /// Writes all of `bytes` at `offset` without moving the file offset (pwrite).
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int, path: String) -> Result<Void, SystemError> {
        if let fault = injectedFailure(.write, path: path) { return .failure(fault) }
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.current())
            }
            done += n
        }
        return .success(())
    }

    package static func fsync(_ fd: Int32, path: String) -> Result<Void, SystemError> {
        if let fault = injectedFailure(.fsync, path: path) { return .failure(fault) }
        return systemFsync(fd) == 0 ? .success(()) : .failure(.current())
    }

    // MARK: Names in folders

    /// Renames `source` over `destination`; a fault matches either path.
    package static func rename(_ source: String, to destination: String) -> Result<Void, SystemError> {
        if let fault = injectedFailure(.rename, path: source) ?? injectedFailure(.rename, path: destination) {
            return .failure(fault)
        }
        return systemRename(source, destination) == 0 ? .success(()) : .failure(.current())
    }

    @discardableResult
    package static func unlink(_ path: String) -> Result<Void, SystemError> {
        if let fault = injectedFailure(.unlink, path: path) { return .failure(fault) }
        return systemUnlink(path) == 0 ? .success(()) : .failure(.current())
    }

    /// Removes an empty folder.
    @discardableResult
    package static func removeFolder(_ path: String) -> Result<Void, SystemError> {
        if let fault = injectedFailure(.unlink, path: path) { return .failure(fault) }
        return rmdir(path) == 0 ? .success(()) : .failure(.current())
    }

    package static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// The names in a folder (without . and ..); empty when it cannot be read.
    package static func folderEntries(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The wall clock in Unix seconds (the personal layer's expiries).
    package static func unixTime() -> Int64 { Int64(time(nil)) }

    // MARK: File status and mappings

    /// What `fd` refers to.
    package static func kind(_ fd: Int32) -> Result<FileKind, SystemError> {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.current()) }
        return .success(FileKind(info))
    }

    /// What `path` names, symbolic links followed; nil when nothing is there.
    package static func kind(atPath path: String) -> Result<FileKind?, SystemError> {
        var info = stat()
        guard stat(path, &info) == 0 else { return errno == ENOENT ? .success(nil) : .failure(.current()) }
        return .success(FileKind(info))
    }

    /// Whether `path` itself is a symbolic link (not followed).
    package static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// Device and inode of what `path` names, links followed; nil when nothing is there (or
    /// it cannot be examined). Two paths with one identity name one file.
    package static func identity(_ path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino))
    }

    /// Owner, mode bits and whether it is a link, of `path` itself (`following: false`) or of
    /// what it leads to; nil when absent.
    package static func ownerAndMode(_ path: String, following: Bool) -> (owner: UInt32, mode: UInt32, isLink: Bool)? {
        var info = stat()
        guard (following ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        return (UInt32(info.st_uid), UInt32(info.st_mode) & 0o7777, (info.st_mode & S_IFMT) == S_IFLNK)
    }

    /// The target text of the symbolic link at `path` (not resolved); nil when it is no link.
    package static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = buffer.withUnsafeMutableBufferPointer { readlink(path, $0.baseAddress!, 4096) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The user the process acts as for file access (its effective uid).
    package static var effectiveUserID: UInt32 { UInt32(geteuid()) }

    /// Whether `fd` refers to a folder.
    package static func isFolder(_ fd: Int32) -> Result<Bool, SystemError> {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.current()) }
        return .success((info.st_mode & S_IFMT) == S_IFDIR)
    }

    /// Maps `length` bytes of `fd` read-only and shared; `path` names it for fault injection.
    package static func mapReadOnly(_ fd: Int32, length: Int, path: String) -> Result<UnsafeRawPointer, SystemError> {
        if let fault = injectedFailure(.mmap, path: path) { return .failure(fault) }
        guard let address = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0), address != MAP_FAILED else {
            return .failure(.current())
        }
        return .success(UnsafeRawPointer(address))
    }

    /// Private zeroed memory of `length` bytes, readable and writable, from mmap (so that
    /// `unmap` releases it like a file mapping); `path` names it for fault injection.
    package static func mapAnonymous(length: Int, path: String) -> Result<UnsafeMutableRawPointer, SystemError> {
        if let fault = injectedFailure(.mmap, path: path) { return .failure(fault) }
        guard let address = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              address != MAP_FAILED else {
            return .failure(.current())
        }
        return .success(address)
    }

    /// Makes a mapping read-only.
    package static func protectReadOnly(_ address: UnsafeMutableRawPointer, length: Int) {
        _ = mprotect(address, length, PROT_READ)
    }

    package static func unmap(_ address: UnsafeRawPointer, length: Int) {
        munmap(UnsafeMutableRawPointer(mutating: address), length)
    }

    /// Drops whole pages of a read-only mapping from resident memory (they reload on touch).
    package static func releasePages(_ address: UnsafeRawPointer, length: Int) {
        _ = madvise(UnsafeMutableRawPointer(mutating: address), length, Int32(MADV_DONTNEED))
    }

    package static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// $TMPDIR when set and not empty, else /tmp: where a temporary goes that has no folder of
    /// its own (an output that is a device or a FIFO).
    package static var temporaryFolder: String {
        guard let value = getenv("TMPDIR").map({ String(cString: $0) }), !value.isEmpty else { return "/tmp" }
        return value.count > 1 && value.hasSuffix("/") ? String(value.dropLast()) : value
    }

    /// `count` zeroed words from calloc, which hands out fresh pages (zero already, mapped on
    /// first touch) without writing them: a reader's per-block flags, allocated at open, then
    /// cost nothing for the pages no lookup touches. Free with `freeZeroed`.
    package static func allocateZeroed(words count: Int) -> UnsafeMutablePointer<UInt64> {
        guard let memory = calloc(max(count, 1), MemoryLayout<UInt64>.stride) else { fatalError("out of memory") }
        return memory.bindMemory(to: UInt64.self, capacity: max(count, 1))
    }

    package static func freeZeroed(_ words: UnsafeMutablePointer<UInt64>) { free(words) }

    // MARK: Processes

    package static var processID: Int32 { getpid() }

    /// Whether no process with this PID exists (false when unsure, e.g. EPERM: it exists).
    package static func processIsGone(_ pid: Int32) -> Bool {
        pid > 0 && kill(pid, 0) != 0 && errno == ESRCH
    }
}

/// Which file a path names: its device and inode.
package struct FileIdentity: Equatable, Sendable {
    package var device: UInt64
    package var inode: UInt64
}

/// What a path or descriptor is, for refusing what cannot be read or written as a file.
package enum FileKind: Equatable, Sendable {
    case regular(size: Int)
    case directory, fifo, characterDevice, blockDevice, socket, other

    init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: self = .regular(size: Int(info.st_size))
        case S_IFDIR: self = .directory
        case S_IFIFO: self = .fifo
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFSOCK: self = .socket
        default: self = .other
        }
    }

    /// "a FIFO", "a directory", ... for messages.
    package var name: String {
        switch self {
        case .regular: return "a regular file"
        case .directory: return "a directory"
        case .fifo: return "a FIFO"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .socket: return "a socket"
        case .other: return "not a regular file"
        }
    }
}

/// An errno value with its text.
package struct SystemError: Error, Equatable {
    package var code: Int32

    package init(code: Int32) { self.code = code }

    package static func current() -> SystemError { SystemError(code: errno) }

    package var isNoSuchFile: Bool { code == ENOENT }

    package var text: String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}

/// A mutex (the fault table's in debug builds, `CallDirectoryExtensionRequest`'s); a pthread
/// mutex because the reader links no Synchronization.
package final class SystemLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package init() { pthread_mutex_init(mutex, nil) }

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

#if canImport(Darwin)
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { Darwin.open(path, flags, mode) }
private func systemClose(_ fd: Int32) -> Int32 { Darwin.close(fd) }
private func systemRead(_ fd: Int32, _ p: UnsafeMutableRawPointer, _ n: Int) -> Int { Darwin.read(fd, p, n) }
private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { Darwin.write(fd, p, n) }
private func systemFsync(_ fd: Int32) -> Int32 { Darwin.fsync(fd) }
private func systemRename(_ a: String, _ b: String) -> Int32 { Darwin.rename(a, b) }
private func systemUnlink(_ path: String) -> Int32 { Darwin.unlink(path) }
#else
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { Glibc.open(path, flags, mode) }
private func systemClose(_ fd: Int32) -> Int32 { Glibc.close(fd) }
private func systemRead(_ fd: Int32, _ p: UnsafeMutableRawPointer, _ n: Int) -> Int { Glibc.read(fd, p, n) }
private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { Glibc.write(fd, p, n) }
private func systemFsync(_ fd: Int32) -> Int32 { Glibc.fsync(fd) }
private func systemRename(_ a: String, _ b: String) -> Int32 { Glibc.rename(a, b) }
private func systemUnlink(_ path: String) -> Int32 { Glibc.unlink(path) }
#endif
