import CallDirReader

/// A file written in full under a temporary name in the destination's folder, then published
/// by fsync + rename + fsync of the folder (`AtomicPublish`, the reader's one home for it, which
/// `SharedFolder` uses too). Until `publish()`, the destination is untouched;
/// `discard()` (or a failure) removes the temporary file. The temporary name carries our PID
/// (`StaleTemporaries`), so a later compile removes it if we are killed before cleaning up.
///
/// Publishing is two steps so that several outputs can be made durable first and renamed
/// only once all of them are complete: `prepare()` (flush, fsync, close) then `commit()`.
///
/// Writes are buffered; `write(at:)` patches bytes already written (the header is written last).
///
/// What is at the destination decides how it is published (`Target`): nothing or a regular
/// file is replaced by rename (through a symbolic link: the file it points to is replaced, the
/// link stays, and a link is followed only as `fs.protected_symlinks` would: `followLinks`); a character device or a FIFO (`-o /dev/null`, `-o /dev/stdout` on a pipe) is
/// never replaced: the finished temporary file (in $TMPDIR or /tmp) is copied into it by
/// `commit()`, so nothing reaches it unless the output is complete; anything else (a folder, a
/// socket, a block device) is refused before any work.
package final class AtomicFile {
    /// How the destination is published.
    package enum Target: Equatable {
        /// Renamed over this path (the destination, or the file its link resolves to).
        case replace(String)
        /// Written into: a character device or a FIFO.
        case writeInto
    }

    package let destination: String
    package let target: Target
    /// What the file is, for messages: "the index", "the rejects list".
    package let role: String
    package let temporaryPath: String
    private var fd: Int32
    private var buffer: [UInt8] = []
    /// Bytes gathered before a write (1 MiB unless the caller asks for less, as a patch does
    /// to keep its resident memory small).
    private let bufferLimit: Int
    /// Bytes handed to `append` so far (the file offset of the next append).
    package private(set) var length = 0
    /// A nameless scratch file (`init(unnamedIn:)`): never fsynced, renamed or unlinked.
    private let unnamed: Bool

    package init(destination: String, role: String = "the index", bufferBytes: Int = 1 << 20) throws {
        self.destination = destination
        bufferLimit = bufferBytes
        self.role = role
        target = try AtomicFile.target(of: destination, role: role)
        let folder: String
        switch target {
        case .replace(let path): folder = AtomicFile.folder(of: path)
        case .writeInto: folder = Syscalls.temporaryFolder
        }
        let base = destination.split(separator: "/").last.map(String.init) ?? "index"
        let template = StaleTemporaries.fileTemplate(folder: folder, destinationName: base)
        switch Syscalls.makeTemporaryFile(template: template, mode: 0o644) {
        case .success(let created):
            fd = created.fd
            temporaryPath = created.path
        case .failure(let error):
            throw CallDirError(.io, "cannot create a temporary file in \(folder) for \(role): "
                                   + "\(error.text); check that the folder exists and is writable", path: destination)
        }
        TemporaryFiles.register(temporaryPath)
        buffer.reserveCapacity(bufferLimit)
        unnamed = false
    }

    /// A scratch file that is never published (`compile --check`): written and read back like
    /// any other, but nameless (`Syscalls.makeUnnamedFile` in `folder`), so nothing is left
    /// behind whatever happens. `destination` only names it in messages; `commit()` is refused.
    /// `scratchName` names the file in messages (and for injected faults) as `folder/scratchName`.
    package init(unnamedIn folder: String, destination: String, role: String = "the index", scratchName: String? = nil,
                 bufferBytes: Int = 1 << 20) throws {
        self.destination = destination
        bufferLimit = bufferBytes
        self.role = role
        target = .replace(destination)  // never used: commit() is refused
        temporaryPath = scratchName.map { folder + "/" + $0 } ?? folder
        let template = StaleTemporaries.fileTemplate(folder: folder, destinationName: "check")
        switch Syscalls.makeUnnamedFile(folder: folder, fallbackTemplate: template) {
        case .success(let created): fd = created
        case .failure(let error):
            throw CallDirError(.io, "cannot create a scratch file in \(folder) for checking \(role): "
                                   + "\(error.text); pass a writable folder with --tmpdir", path: folder)
        }
        buffer.reserveCapacity(bufferLimit)
        unnamed = true
    }

    deinit { discard() }

    package func append(_ bytes: UnsafeRawBufferPointer) throws {
        length += bytes.count
        if buffer.count + bytes.count > bufferLimit { try flush() }
        if bytes.count >= bufferLimit { try writeAll(bytes); return }
        buffer.append(contentsOf: bytes)
    }

    package func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in try append(raw) }
    }

    /// Overwrites bytes at `offset` (which must already have been appended).
    package func write(_ bytes: [UInt8], at offset: Int) throws {
        try flush()
        let written = bytes.withUnsafeBytes { Syscalls.writeAll(fd, $0, at: offset, path: temporaryPath) }
        try check(written, "write")
    }

    /// Makes the file durable and atomically replaces the destination.
    package func publish() throws {
        try prepare()
        try commit()
    }

    /// Writes what is buffered and makes the temporary file durable; nothing is published yet.
    /// After it, only `commit()` or `discard()`.
    package func prepare() throws {
        try flush()
        if unnamed { return }  // nothing to make durable: it stays open until `discard()`
        if target != .writeInto { try check(Syscalls.fsync(fd, path: temporaryPath), "fsync") }
        let closed = Syscalls.closeAfterWriting(fd, path: temporaryPath)
        fd = -1
        try check(closed, "close")
    }

    /// Renames the prepared file over the destination and syncs the folder (or copies it into
    /// the device or FIFO, then removes it).
    package func commit() throws {
        precondition(!unnamed, "AtomicFile: an unnamed scratch file is never published")
        precondition(fd < 0, "AtomicFile: commit() before prepare()")
        guard case .replace(let path) = target else {
            defer { discard() }  // copied or not (a FIFO's reader left: EPIPE), the temporary goes
            try copyIntoDestination()
            return
        }
        try check(AtomicPublish.rename(temporaryPath, over: path), "rename")  // and syncs the folder
        TemporaryFiles.unregister(temporaryPath)
    }

    /// Removes the temporary file; the destination is left as it was.
    package func discard() {
        if unnamed {
            if fd >= 0 { Syscalls.close(fd) }
            fd = -1
            return
        }
        if fd >= 0 {
            Syscalls.close(fd)
            fd = -1
            Syscalls.unlink(temporaryPath)
        } else if Syscalls.exists(temporaryPath) {
            Syscalls.unlink(temporaryPath)
        }
        TemporaryFiles.unregister(temporaryPath)
    }

    /// Maps what has been written so far, for a read-back pass before publishing.
    package func mapWritten() throws -> MappedFile {
        try flush()
        return try MappedFile(fd: fd, length: length, path: temporaryPath)
    }

    /// Refuses a path that is there and is not a regular file, or is a symbolic link: a file
    /// replaced in place by rename (`update --index`, the feed state), unlike an `-o` output, is
    /// never written into a device or FIFO nor through a link. Absent is fine.
    package static func requireRegularOrAbsent(_ path: String, role: String) throws {
        let what: String
        if Syscalls.isSymbolicLink(path) {
            what = "a symbolic link"  // even a dangling one: the rename would replace the link
        } else {
            switch Syscalls.kind(atPath: path) {
            case .success(nil), .success(.regular?), .failure: return
            case .success(let kind?): what = kind.name
            }
        }
        throw CallDirError(.usage, "the path is \(what), which \(role) would replace (it is installed by renaming a new "
                           + "regular file over it); give the path of a regular file, or of none yet", path: path)
    }

    /// How `destination` is published, from what is there now (see the type's comment).
    package static func target(of destination: String, role: String) throws -> Target {
        switch Syscalls.kind(atPath: destination) {
        case .success(nil), .failure:  // nothing there (or unreadable: creating the temporary reports it)
            return .replace(destination)
        case .success(.regular?):
            return .replace(try followLinks(destination, role: role))
        case .success(.characterDevice?), .success(.fifo?):
            _ = try followLinks(destination, role: role)
            return .writeInto
        case .success(let kind?):
            throw CallDirError(.usage, "the output is \(kind.name): \(role) is written to a regular file (replaced "
                               + "atomically), a character device or a FIFO (written into once complete); choose another path",
                               path: destination)
        }
    }

    /// The path the symbolic links at `path` lead to, one link at a time (`path` itself when it
    /// is no link), following each only as the kernel's `fs.protected_symlinks` would: a link
    /// in a sticky world-writable folder (/tmp) is followed only when its owner is the caller
    /// or the folder's owner. Otherwise another user could plant `/tmp/x -> /etc/shadow` and
    /// have a root cron's `-o /tmp/x` replace the target. Links left in the returned path's
    /// folders are the kernel's to check when the temporary file is created there.
    package static func followLinks(_ path: String, role: String) throws -> String {
        var current = path
        for _ in 0..<40 {  // the kernel's limit on links in a path
            guard let link = Syscalls.ownerAndMode(current, following: false), link.isLink else { return current }
            let folder = Self.folder(of: current)
            if let parent = Syscalls.ownerAndMode(folder, following: true), parent.mode & 0o1002 == 0o1002,
               link.owner != Syscalls.effectiveUserID, link.owner != parent.owner {
                throw CallDirError(.usage, "the output is a symbolic link owned by uid \(link.owner) in \(folder), a sticky "
                                   + "world-writable folder that uid does not own: following it would let another user choose "
                                   + "what \(role) replaces (the kernel's fs.protected_symlinks rule); remove the link or "
                                   + "choose another path", path: current)
            }
            guard let target = Syscalls.linkTarget(current) else { return current }
            current = target.hasPrefix("/") ? target : (folder == "/" ? "" : folder) + "/" + target
        }
        throw CallDirError(.usage, "the output is a chain of more than 40 symbolic links; choose another path", path: path)
    }

    /// Refuses an output that names one of the command's inputs (the same device and inode,
    /// links followed): publishing it would replace the file being read, with exit 0. Call
    /// before any work, with every input path the command reads (`-` and absent paths skip).
    package static func refuseInputs(_ inputs: [String], output: String?, role: String) throws {
        guard let output, output != "-", let written = Syscalls.identity(output) else { return }
        for input in inputs where input != "-" && Syscalls.identity(input) == written {
            throw CallDirError(.usage, "\(role) \(output) is the input \(input) (the same file): writing it would replace "
                               + "what the command reads; choose another output path", path: output)
        }
    }

    /// Copies the finished temporary file into the device or FIFO at `destination`, opened
    /// without creating or truncating anything (a FIFO's open waits for its reader).
    private func copyIntoDestination() throws {
        let out = try opened(Syscalls.openExistingForWriting(destination), "open")
        var copied = Result<Void, SystemError>.success(())
        switch Syscalls.kind(out) {
        case .success(.characterDevice), .success(.fifo):
            switch Syscalls.openReadOnly(temporaryPath) {
            case .success(let input):
                copied = AtomicFile.copy(input, to: out, from: temporaryPath, into: destination)
                Syscalls.close(input)
            case .failure(let error): copied = .failure(error)
            }
        case .success(let kind):
            Syscalls.close(out)
            throw CallDirError(.io, "the output became \(kind.name) while \(role) was written; nothing was written to it",
                               path: destination)
        case .failure(let error): copied = .failure(error)
        }
        let closed = Syscalls.closeAfterWriting(out, path: destination)
        try check(copied, "write")
        try check(closed, "close")
    }

    private static func copy(_ input: Int32, to out: Int32, from source: String, into destination: String) -> Result<Void, SystemError> {
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let read = chunk.withUnsafeMutableBytes { Syscalls.read(input, into: $0, path: source) }
            guard case .success(let count) = read else { return read.map { _ in } }
            if count == 0 { return .success(()) }
            let written = chunk.withUnsafeBytes { Syscalls.writeAll(out, UnsafeRawBufferPointer(rebasing: $0[..<count]), path: destination) }
            guard case .success = written else { return written }
        }
    }

    private func opened(_ result: Result<Int32, SystemError>, _ what: String) throws -> Int32 {
        switch result {
        case .success(let fd): return fd
        case .failure(let error):
            try check(.failure(error), what)
            return -1
        }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { raw in try writeAll(raw) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        try check(Syscalls.writeAll(fd, bytes, path: temporaryPath), "write")
    }

    private func check(_ result: Result<Void, SystemError>, _ what: String) throws {
        guard case .failure(let error) = result else { return }
        throw CallDirError(.io, "\(what) failed while writing \(role): \(error.text); "
                         + "nothing was published (free space, or check the folder's permissions)", path: destination)
    }

    package static func folder(of path: String) -> String { AtomicPublish.folder(of: path) }
}

/// A small text output written whole and published like every other output (temporary file,
/// fsync, rename): the CLI's reports such as `compile --error-file`.
package enum AtomicText {
    /// Writes `text` to `path` atomically; `role` names the output in errors.
    package static func publish(_ text: String, to path: String, role: String) throws {
        let file = try AtomicFile(destination: path, role: role)
        do {
            var text = text
            try text.withUTF8 { try file.append(UnsafeRawBufferPointer($0)) }
            try file.publish()
        } catch {
            file.discard()
            throw error
        }
    }
}
