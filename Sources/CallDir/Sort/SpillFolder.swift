import CallDirReader
import CallDirWriter

/// A private folder (`mkdtemp`, mode 0700) for one sort's spill files. The folder and every
/// file in it are registered with `TemporaryFiles`, so an interrupt removes them; `removeAll()`
/// removes them otherwise and is safe to call more than once. After a kill -9, a later compile
/// removes the folder by its name (`StaleTemporaries`).
final class SpillFolder {
    let path: String
    private var files: Set<String> = []
    private var nextNumber = 0
    private var removed = false

    /// Creates `calldir-sort-PID-XXXXXX` inside `parent`.
    init(parent: String) throws {
        let trimmed = parent.count > 1 && parent.hasSuffix("/") ? String(parent.dropLast()) : parent
        let template = StaleTemporaries.folderTemplate(parent: trimmed.isEmpty ? "." : trimmed)
        switch Syscalls.makeTemporaryFolder(template: template) {
        case .success(let created): path = created
        case .failure(let error):
            throw CallDirError(.io, "cannot create a spill folder for sorting in \(parent) (\(error.text)); "
                                   + "pass a writable folder with --tmpdir", path: parent)
        }
        TemporaryFiles.register(path)
    }

    deinit { removeAll() }

    /// A new file name in the folder, registered for removal (the file is not created here).
    func newFile() -> String {
        precondition(!removed, "SpillFolder: used after removeAll()")
        nextNumber += 1
        let file = "\(path)/run-\(nextNumber).bin"
        files.insert(file)
        TemporaryFiles.register(file)
        return file
    }

    /// Removes one file made by `newFile()`.
    func remove(_ file: String) {
        guard files.remove(file) != nil else { return }
        Syscalls.unlink(file)
        TemporaryFiles.unregister(file)
    }

    /// Removes every remaining file and the folder.
    func removeAll() {
        guard !removed else { return }
        removed = true
        for file in files {
            Syscalls.unlink(file)
            TemporaryFiles.unregister(file)
        }
        files.removeAll()
        Syscalls.removeFolder(path)
        TemporaryFiles.unregister(path)
    }

    /// An I/O error about a spill file, with errno's text and the usual remedies.
    static func ioError(_ what: String, _ error: SystemError, path: String) -> CallDirError {
        CallDirError(.io, "\(what) (\(error.text)); free space in the temporary folder or pass "
                         + "another one with --tmpdir", path: path)
    }
}
