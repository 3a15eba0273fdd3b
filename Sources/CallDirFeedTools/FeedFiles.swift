#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CallDirFeed
import CallDirReader
import CallDirWriter

/// File helpers of the feed's tools: digests of mapped files, small reads, folders.
package enum FeedFiles {
    /// SHA-256 of a whole mapped file (`FeedFollower.sha256`, the one home).
    package static func sha256(_ file: MappedFile) -> String { FeedFollower.sha256(file) }

    package static func crcText(_ crc: UInt32) -> String { hex(crc) }

    /// $TMPDIR, else /tmp: scratch files of a check (never inside the feed folder being checked).
    package static var temporaryFolder: String {
        guard let dir = getenv("TMPDIR"), dir.pointee != 0 else { return "/tmp" }
        return String(cString: dir)
    }

    /// The whole file, at most `maxBytes`; nil when it does not exist.
    package static func read(_ path: String, maxBytes: Int) throws -> [UInt8]? {
        guard Syscalls.exists(path) else { return nil }
        let file = try MappedFile(path: path)
        guard file.bytes.count <= maxBytes else {
            throw FeedError(.size, "\(file.bytes.count) bytes is over the limit of \(maxBytes)", path: path)
        }
        return Array(file.bytes)
    }

    package static func makeFolder(_ path: String) throws {
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw FeedError(.install, "cannot create the folder: \(String(cString: strerror(errno)))", path: path)
        }
    }

    /// Runs `body` holding an exclusive flock(2) on the folder itself (no lock file to serve or
    /// leave behind; released by the kernel if the process dies). Another holder: check `busy`.
    package static func withFolderLock<T>(_ folder: String, _ body: () throws -> T) throws -> T {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw FeedError(.install, "cannot open the folder to lock it: \(String(cString: strerror(errno)))", path: folder)
        }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            throw FeedError(busy ? .busy : .install, busy ? "another `calldir publish` is publishing into this feed folder; "
                            + "nothing was changed: run again once it has finished"
                            : "cannot lock the folder: \(String(cString: strerror(errno)))", path: folder)
        }
        return try body()
    }

    /// Runs `body` holding an exclusive flock(2) on the folder of a followed index (`update`,
    /// `serve --follow`), waiting for another follower's install to end (at most `wait`
    /// seconds, then check `busy`): the serial is re-checked and the index installed under it,
    /// so two updaters of one index never install out of order.
    package static func withFollowerLock<T>(_ folder: String, wait: Int64 = 300,
                                            _ body: () async throws -> T) async throws -> T {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw FeedError(.install, "cannot open the index's folder to lock it: \(String(cString: strerror(errno)))", path: folder)
        }
        defer { close(fd) }
        var waited: Int64 = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw FeedError(.install, "cannot lock the index's folder: \(String(cString: strerror(errno)))", path: folder)
            }
            guard waited < wait * 1000 else {
                throw FeedError(.busy, "another update held this folder's lock for \(wait) s; nothing was changed", path: folder)
            }
            try await Task.sleep(nanoseconds: 20_000_000)
            waited += 20
        }
        return try await body()
    }

    /// A new name for a temporary beside `destination` (mkstemp, so unique; a killed update's is
    /// recognised by its PID and swept, `StaleTemporaries`), removed on SIGINT/SIGTERM until
    /// `TemporaryFiles.unregister`.
    package static func temporaryName(beside destination: String, suffix: String) throws -> String {
        let base = destination.split(separator: "/").last.map(String.init) ?? "index"
        let template = StaleTemporaries.fileTemplate(folder: AtomicFile.folder(of: destination), destinationName: base + suffix)
        switch Syscalls.makeTemporaryFile(template: template, mode: 0o644) {
        case .success(let made):
            Syscalls.close(made.fd)
            TemporaryFiles.register(made.path)
            return made.path
        case .failure(let error):
            throw FeedError(.install, "cannot create a temporary file beside it: \(error.text)", path: destination)
        }
    }

    package static func publish(_ bytes: [UInt8], to path: String, role: String) throws {
        try AtomicText.publish(String(decoding: bytes, as: UTF8.self), to: path, role: role)
    }

    /// Renames `source` over `destination` and syncs the folder.
    package static func rename(_ source: String, over destination: String) throws {
        if case .failure(let error) = AtomicPublish.rename(source, over: destination) {
            throw FeedError(.install, "cannot rename \(source) over it: \(error.text)", path: destination)
        }
    }
}

/// A feed folder on disk as a transport: `verify --feed` and tests read a feed through the
/// same checks a follower applies over HTTP.
package struct FolderFeedTransport: FeedTransport {
    package let root: String
    package init(root: String) { self.root = root }

    package func fetch(_ path: String, maxBytes: Int, ifNoneMatch: String?) async throws -> FeedFetched? {
        guard let bytes = try FeedFiles.read(root + "/" + path, maxBytes: maxBytes) else {
            throw FeedError(.missing, "the feed has no such file", path: root + "/" + path)
        }
        return FeedFetched(bytes: bytes, etag: nil)
    }

    package func location(_ path: String) -> String { root + "/" + path }

    package func download(_ path: String, maxBytes: Int, into sink: FeedDownloadSink) async throws {
        let full = root + "/" + path
        guard Syscalls.exists(full) else { throw FeedError(.missing, "the feed has no such file", path: full) }
        let file = try MappedFile(path: full)
        let chunk = 1 << 20
        var at = 0
        while at < file.bytes.count {
            let end = min(at + chunk, file.bytes.count)
            try sink.append(UnsafeRawBufferPointer(rebasing: file.bytes[at..<end]))
            file.release(at..<end)
            at = end
        }
    }
}
