/// The folder an app and its Call Directory extension share (the App Group container on iOS):
/// the index, the previous index (the base of an update), and the two records of the loading
/// protocol (docs/CALLKIT.md): *pending*, written only by the extension, and *committed*,
/// written only by the app after it saw a request succeed. Portable (the reader's `Syscalls`,
/// no Foundation): the app, the extension and Linux tests use the same code.
///
/// Every write is atomic (a temporary file in the folder, fsync, rename, fsync of the folder),
/// so a reader sees the old bytes or the new ones, never a mix.
public struct SharedFolder: Sendable {
    /// The folder the app and its extension share.
    public let path: String
    /// Where the user's layer is (`personal.txt`, `contacts.vcf`): `path` itself, or for a
    /// shard's folder the App Group root, so one layer applies to every shard.
    public let layerPath: String

    /// `path`: the folder (on iOS, `containerURL(forSecurityApplicationGroupIdentifier:)`'s path).
    public init(path: String) {
        self.path = path
        layerPath = path
    }

    private init(path: String, layerPath: String) {
        self.path = path
        self.layerPath = layerPath
    }

    /// The folder of the shard that the extension `extensionIdentifier` loads, when one list is
    /// split over several extensions (docs/CALLKIT.md, "Several extensions"):
    /// `shards/<identifier>/` in this folder, with its own index and load records (a failure
    /// in one extension touches no other's), and this folder's user's layer. Throws `.usage`
    /// for an identifier that is not a bundle identifier (it names a folder).
    public func shard(_ extensionIdentifier: String) throws -> SharedFolder {
        guard Self.isBundleIdentifier(extensionIdentifier) else {
            throw CallDirError(.usage, "\"\(extensionIdentifier)\" is not an extension's bundle identifier (letters, digits, '.' and '-')", path: path)
        }
        return SharedFolder(path: shardsPath + "/" + extensionIdentifier, layerPath: layerPath)
    }

    /// The folder of the shards' folders.
    public var shardsPath: String { path + "/shards" }

    /// A shard folder's `shards/`.
    private var shardsParent: String { AtomicPublish.folder(of: path) }

    /// Whether `text` can be a bundle identifier (Apple: alphanumerics, '.' and '-'), and so
    /// a folder's name: never empty, `.`, `..` or a path.
    public static func isBundleIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 255 && text != "." && text != ".."
            && text.utf8.allSatisfy { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    /// Creates this folder (and a shard folder's `shards/` above it) when missing; the app
    /// calls it before the first install into a shard.
    public func create() throws {
        for folder in path == layerPath ? [path] : [shardsParent, path] {
            if case .failure(let error) = Syscalls.makeFolder(folder) { throw Self.ioError("cannot create the folder", folder, error) }
        }
    }

    /// The App Group container `appGroup` as the shared folder. `containerPath` is what
    /// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)` gave: nil when the
    /// target lacks the App Group entitlement, which throws `.usage` naming the fix.
    public init(appGroup: String, containerPath: String?) throws {
        guard let containerPath, !containerPath.isEmpty else {
            throw CallDirError(.usage, "App Group \(appGroup) is not available to this target: add it under Signing & Capabilities > App Groups to both the app and its Call Directory extension (docs/CALLKIT.md, \"From an empty Xcode project\")")
        }
        self.init(path: containerPath)
    }

    /// The installed index.
    public var indexPath: String { path + "/index.calldir" }
    /// The index it replaced, kept while the device is updated from it.
    public var previousIndexPath: String { path + "/previous.calldir" }
    /// The extension's record of the request under way.
    public var pendingPath: String { path + "/checkpoint.pending" }
    /// The app's record of what the device holds.
    public var committedPath: String { path + "/checkpoint.committed" }
    /// Where the app moves pending aside to compare it before clearing it (`take`).
    public var takenPath: String { path + "/checkpoint.taken" }

    /// The pending record (`LoadCheckpoint.pendingRecord`), as bytes; nil when absent.
    public func readPending() throws -> [UInt8]? { try read(pendingPath) }
    /// The committed checkpoint's bytes; nil when absent.
    public func readCommitted() throws -> [UInt8]? { try read(committedPath) }

    /// A whole small file, or nil when it does not exist. Throws `.io` for any other failure.
    public func read(_ file: String, limit: Int = 1 << 16) throws -> [UInt8]? {
        let fd: Int32
        switch Syscalls.openReadOnly(file) {
        case .success(let opened): fd = opened
        case .failure(let error) where error.isNoSuchFile: return nil
        case .failure(let error): throw Self.ioError("cannot open", file, error)
        }
        defer { Syscalls.close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = try buffer.withUnsafeMutableBytes { raw -> Int in
                switch Syscalls.read(fd, into: raw, path: file) {
                case .success(let n): return n
                case .failure(let error): throw Self.ioError("cannot read", file, error)
                }
            }
            if n == 0 { return bytes }
            bytes += buffer[0..<n]
            guard bytes.count <= limit else { throw CallDirError(.io, "larger than \(limit) bytes: not a record of ours", path: file) }
        }
    }

    /// Publishes `bytes` as `file` atomically. On failure `file` is untouched and no
    /// temporary file is left.
    public func writeAtomically(_ bytes: [UInt8], to file: String) throws {
        try publish(to: file) { fd, temporary in
            try bytes.withUnsafeBytes { raw in
                if case .failure(let error) = Syscalls.writeAll(fd, raw, path: temporary) { throw Self.ioError("cannot write", temporary, error) }
            }
        }
    }

    /// Copies `source` to `file` atomically (the index kept as the previous one).
    public func copyAtomically(_ source: String, to file: String) throws {
        let input: Int32
        switch Syscalls.openReadOnly(source) {
        case .success(let fd): input = fd
        case .failure(let error): throw Self.ioError("cannot open", source, error)
        }
        defer { Syscalls.close(input) }
        try publish(to: file) { fd, temporary in
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = try buffer.withUnsafeMutableBytes { raw -> Int in
                    switch Syscalls.read(input, into: raw, path: source) {
                    case .success(let n): return n
                    case .failure(let error): throw Self.ioError("cannot read", source, error)
                    }
                }
                if n == 0 { return }
                try buffer.withUnsafeBytes { raw in
                    if case .failure(let error) = Syscalls.writeAll(fd, UnsafeRawBufferPointer(rebasing: raw[0..<n]), path: temporary) {
                        throw Self.ioError("cannot write", temporary, error)
                    }
                }
            }
        }
    }

    /// Renames `source` (a file in this folder) over `file` and syncs the folder.
    public func rename(_ source: String, to file: String) throws {
        if case .failure(let error) = AtomicPublish.rename(source, over: file) { throw Self.ioError("cannot rename to \(file)", source, error) }
    }

    /// Renames `file` to `aside` and returns what it held; nil when there was no `file`. The
    /// rename is atomic: a writer publishing `file` after it makes a new `file`, never changes
    /// what was taken.
    public func take(_ file: String, to aside: String) throws -> [UInt8]? {
        switch AtomicPublish.rename(file, over: aside) {
        case .failure(let error) where error.isNoSuchFile: return nil
        case .failure(let error): throw Self.ioError("cannot rename to \(aside)", file, error)
        case .success: return try read(aside)
        }
    }

    /// Removes `file`; a missing file is not an error.
    public func remove(_ file: String) throws {
        if case .failure(let error) = Syscalls.unlink(file), !error.isNoSuchFile { throw Self.ioError("cannot remove", file, error) }
    }

    /// Whether `file` exists.
    public func exists(_ file: String) -> Bool { Syscalls.exists(file) }

    /// Writes `file` through `AtomicPublish`: a temporary beside it (in `file`'s own folder,
    /// so the rename never crosses file systems), durable, renamed over it.
    private func publish(to file: String, _ write: (Int32, String) throws -> Void) throws {
        let name = file.split(separator: "/").last.map(String.init) ?? "file"
        let created: (fd: Int32, path: String)
        switch Syscalls.makeTemporaryFile(template: AtomicPublish.folder(of: file) + "/." + name + ".XXXXXX", mode: 0o644) {
        case .success(let made): created = made
        case .failure(let error): throw Self.ioError("cannot create a temporary file for", file, error)
        }
        do {
            try write(created.fd, created.path)
        } catch {
            Syscalls.close(created.fd)
            Syscalls.unlink(created.path)
            throw error
        }
        if case .failure(let failed) = AtomicPublish.finish(created.fd, temporary: created.path) {
            Syscalls.unlink(created.path)
            throw Self.ioError(failed.call == "fsync" ? "cannot sync" : "cannot close", created.path, failed.error)
        }
        if case .failure(let error) = AtomicPublish.rename(created.path, over: file) {
            Syscalls.unlink(created.path)
            throw Self.ioError("cannot rename to \(file)", created.path, error)
        }
    }

    static func ioError(_ what: String, _ file: String, _ error: SystemError) -> CallDirError {
        CallDirError(.io, "\(what): \(error.text)", path: file)
    }
}
