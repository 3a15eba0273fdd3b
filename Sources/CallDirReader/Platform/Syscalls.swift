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
/// Calls are per buffer, never per byte; each checks the fault table first (one uncontended
/// lock), which is what lets a test make a chosen call fail on a chosen path.
/// Results carry the errno (`SystemError`); `EINTR` is retried here, never by callers.
package enum Syscalls {
    // MARK: Opening and closing

    /// Opens `path` read-only; returns the descriptor or the failure's errno.
    package static func openReadOnly(_ path: String) -> Result<Int32, SystemError> {
        open(path, flags: O_RDONLY | O_CLOEXEC, call: .open)
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

    // MARK: File status and mappings

    /// Size of the file behind `fd` when it is a regular file; nil for anything else.
    package static func regularFileSize(_ fd: Int32) -> Result<Int?, SystemError> {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.current()) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .success(nil) }
        return .success(Int(info.st_size))
    }

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

    package static func unmap(_ address: UnsafeRawPointer, length: Int) {
        munmap(UnsafeMutableRawPointer(mutating: address), length)
    }

    /// Drops whole pages of a read-only mapping from resident memory (they reload on touch).
    package static func releasePages(_ address: UnsafeRawPointer, length: Int) {
        _ = madvise(UnsafeMutableRawPointer(mutating: address), length, Int32(MADV_DONTNEED))
    }

    package static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

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

/// The mutex that guards the fault table (`FaultInjection.swift`); a pthread mutex because the
/// reader links no Synchronization.
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
