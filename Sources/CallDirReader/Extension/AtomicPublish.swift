/// The one home of atomic publishing, shared by the extension's records (`SharedFolder`), the
/// app's installs and every output of the library (`AtomicFile` in CallDirPatch) and the feed:
/// a file is written in full under a temporary name in its destination's folder, made durable
/// (`fsync`), renamed over the destination, and the folder is synced so that the rename itself
/// survives a power loss. A reader sees the old file or the new one, never a mix or none.
package enum AtomicPublish {
    /// The folder holding `path`: "." for a bare name, "/" for a file at the root.
    package static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// A failed step: the call ("fsync", "close") and its errno.
    package struct Failure: Error {
        package var call: String
        package var error: SystemError
    }

    /// Makes the finished temporary file open as `fd` durable and closes it (the descriptor is
    /// closed whatever happens). On failure, names the call that failed.
    package static func finish(_ fd: Int32, temporary: String) -> Result<Void, Failure> {
        if case .failure(let error) = Syscalls.fsync(fd, path: temporary) {
            Syscalls.close(fd)
            return .failure(Failure(call: "fsync", error: error))
        }
        if case .failure(let error) = Syscalls.closeAfterWriting(fd, path: temporary) {
            return .failure(Failure(call: "close", error: error))
        }
        return .success(())
    }

    /// Renames `temporary` over `destination` (same folder) and syncs that folder.
    package static func rename(_ temporary: String, over destination: String) -> Result<Void, SystemError> {
        if case .failure(let error) = Syscalls.rename(temporary, to: destination) { return .failure(error) }
        syncFolder(folder(of: destination))
        return .success(())
    }

    /// `fsync` of a folder, so that a rename in it is durable (best effort: some file systems
    /// refuse it, and the rename itself already happened).
    package static func syncFolder(_ folder: String) {
        guard case .success(let fd) = Syscalls.openFolder(folder) else { return }
        _ = Syscalls.fsync(fd, path: folder)
        Syscalls.close(fd)
    }
}
