import Foundation
import Synchronization
import Testing
@testable import CallDir
import CallDirReader
@testable import CallDirPatch
@testable import CallDirWriter
import CompileSupport
import TestSupport

/// Outputs (`-o`) that are not regular files: a character device or a FIFO is written into,
/// never replaced by a renamed temporary (as root, `-o /dev/null` replaced the system's
/// /dev/null); a folder or a socket is refused before any work. Every writer goes through
/// `AtomicFile`: compile, diff, patch, export.
@Suite("Outputs that are devices, FIFOs or folders")
struct OutputTargetTests {
    /// The four writers, each writing to `output` from a small OLD/NEW pair.
    struct Writers {
        let list: String, old: String, new: String, delta: String, scratch: String

        init(_ folder: TempFolder) throws {
            old = folder.file("old.calldir")
            new = folder.file("new.calldir")
            delta = folder.file("d.delta")
            scratch = folder.path
            list = folder.write("old.txt", "14085550000\n14085550001\n")
            try compile(block: [list], output: old)
            try compile(block: [folder.write("new.txt", "14085550001\n14085550002\n")],
                        identify: [folder.write("new.csv", "18005550000,Caller\n")], output: new)
            _ = try Differ.diff(old: CallDirIndex(path: old), new: CallDirIndex(path: new), output: delta, temporaryFolder: folder.path)
        }

        var all: [(String, (String) throws -> Void)] {
            [("compile", { output in try compile(block: [self.list], output: output) }),
             ("diff", { output in _ = try Differ.diff(old: CallDirIndex(path: self.old), new: CallDirIndex(path: self.new), output: output, temporaryFolder: self.scratch) }),
             ("patch", { output in
                 _ = try Patcher.patch(old: CallDirIndex(path: self.old), delta: DeltaFile(path: self.delta), output: output, temporaryFolder: self.scratch)
             }),
             ("export", { output in
                 _ = try Exporter(index: CallDirIndex(path: self.new), options: ExportOptions(format: .saracroche)).run(to: output)
             })]
        }
    }

    func kind(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    /// Temporaries a writer left in `folder` (our own PID's) for the output named `output`.
    /// Only that output's: other suites of this process write into devices at the same time,
    /// and their temporaries in $TMPDIR are theirs.
    func leftovers(_ folder: String, for output: String) -> [String] {
        let name = output.split(separator: "/").last.map(String.init) ?? output
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix(".\(name).") && $0.contains(".calldir.tmp.\(getpid()).") }
    }

    @Test("a character device at -o is written into and stays a device (a private node made with mknod, never /dev)")
    func characterDevice() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let node = folder.file("null")
        // The null device's numbers (1, 3): makedev(1, 3) on Linux.
        guard mknod(node, S_IFCHR | 0o666, dev_t(0x103)) == 0 else {
            print("skipped: mknod needs root (CAP_MKNOD) and this test runs as uid \(getuid()): \(String(cString: strerror(errno)))")
            return
        }
        let writers = try Writers(folder)
        for (name, write) in writers.all {
            try write(node)
            #expect(kind(node) == S_IFCHR, "\(name) replaced the device node with something else")
            #expect(leftovers(folder.path, for: node).isEmpty && leftovers(Syscalls.temporaryFolder, for: node).isEmpty,
                    "\(name) left a temporary")
        }
    }

    @Test("a FIFO at -o receives exactly the bytes a regular file gets, and stays a FIFO")
    func fifo() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let writers = try Writers(folder)
        let fifo = folder.file("out.fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        for (name, write) in writers.all {
            let regular = folder.file("\(name).regular")
            try write(regular)
            let received = Mutex<[UInt8]>([])
            let done = DispatchSemaphore(value: 0)
            let reader = Thread {
                defer { done.signal() }
                let fd = open(fifo, O_RDONLY)  // waits for the writer's open
                var buffer = [UInt8](repeating: 0, count: 65536), bytes: [UInt8] = []
                while true {
                    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if n <= 0 { break }
                    bytes += buffer[0..<n]
                }
                close(fd)
                received.withLock { $0 = bytes }
            }
            reader.start()
            do { try write(fifo) } catch {
                Issue.record("\(name) into a FIFO: \(error)")
                close(open(fifo, O_WRONLY | O_NONBLOCK))  // releases the reader
            }
            done.wait()
            #expect(received.withLock { $0 } == fileBytes(regular), "\(name): the FIFO got other bytes than a regular file")
            #expect(kind(fifo) == S_IFIFO, "\(name) replaced the FIFO")
            #expect(leftovers(folder.path, for: fifo).isEmpty && leftovers(Syscalls.temporaryFolder, for: fifo).isEmpty,
                    "\(name) left a temporary")
        }
    }

    @Test("a folder or a socket at -o is refused with a message naming it, before any work, and left as it was")
    func folderAndSocket() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let writers = try Writers(folder)
        let directory = folder.file("out.d")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let socketPath = folder.file("out.sock")
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in socketPath.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        for (path, what, type) in [(directory, "a directory", S_IFDIR), (socketPath, "a socket", S_IFSOCK)] {
            for (name, write) in writers.all {
                do {
                    try write(path)
                    Issue.record("\(name) -o \(what) was accepted")
                } catch let error as CallDirError {
                    #expect(error.code == .usage && error.message.contains("the output is \(what)"), "\(name): \(error)")
                    #expect(error.path == path)
                }
                #expect(kind(path) == type, "\(name) changed \(what)")
            }
        }
        #expect(leftovers(folder.path, for: directory).isEmpty && leftovers(folder.path, for: socketPath).isEmpty)
    }

    @Test("an output through a symbolic link replaces the file it points to and keeps the link")
    func symbolicLink() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let writers = try Writers(folder)
        let target = folder.file("release.calldir")
        let link = folder.file("current.calldir")
        try FileManager.default.copyItem(atPath: writers.old, toPath: target)
        #expect(symlink(target, link) == 0)
        _ = try Exporter(index: CallDirIndex(path: writers.new), options: ExportOptions(format: .saracroche)).run(to: link)
        #expect(kind(link) == S_IFLNK)
        #expect(String(decoding: fileBytes(target), as: UTF8.self).contains("\"patterns\""))
    }
}
