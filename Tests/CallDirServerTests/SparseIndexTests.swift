import CallDirServer
import Foundation
import Testing
@testable import CallDirReader
import TestSupport

/// Issue 39 item 2: the daemon looks at the header and the file's size before it reads any
/// content. A 3 GiB sparse file (`ftruncate`: no disk used) at the index path was read whole
/// (18 s, 3.0 GiB of memory) before its header was looked at.
@Suite("The daemon reads the header before the content")
struct SparseIndexTests {
    /// Bytes this process has read through read(2) so far (`rchar` of /proc/self/io), or nil
    /// where there is no such file.
    static func bytesRead() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("rchar:") }) else { return nil }
        return Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces))
    }

    /// A sparse file of `size` bytes at `path` whose first bytes are `prefix`.
    static func sparseFile(_ path: String, size: Int, prefix: [UInt8]) throws {
        FileManager.default.createFile(atPath: path, contents: Data(prefix))
        let fd = open(path, O_WRONLY)
        defer { close(fd) }
        #expect(ftruncate(fd, off_t(size)) == 0)
    }

    @Test("a 3 GiB sparse file, of zeros or behind an index's own header, is refused after its header is read",
          arguments: ["zeros", "header"])
    func sparseFileRefusedAtOnce(kind: String) throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let good = try scratch.compile("good.calldir", block: ["14085550000"], identify: ["18005550000,Caller"])
        let path = scratch.file("index.calldir")
        try Self.sparseFile(path, size: 3 << 30, prefix: kind == "zeros" ? [] : Array(fileBytes(good).prefix(64)))
        let holder = IndexHolder(path: path, metrics: Metrics(), logger: quietLogger, retireWaitMilliseconds: 0)
        let before = Self.bytesRead()
        guard case .refused(let error) = holder.reload(reason: "test") else {
            Issue.record("a sparse file was loaded")
            return
        }
        #expect(error.code == .corruptIndex)
        let named = kind == "zeros" ? "not a calldir index" : "its header says \(fileBytes(good).count)"
        #expect(error.message.contains(named), "\(error)")
        if let before, let after = Self.bytesRead() {
            // Other tests may read meanwhile: a bound far below the file's 3 GiB.
            #expect(after - before < 256 << 20, "read \(after - before) bytes before refusing")
        }
        // The intact file is then served; lookups answer.
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: good, toPath: path)
        guard case .loaded(let loaded) = holder.reload(reason: "test") else { Issue.record("the intact index was refused"); return }
        #expect(try loaded.index.lookup(14_085_550_000).blocked != nil)
    }

    @Test("a sparse file behind a forged header whose size field matches is refused by its trailer, before its body is read")
    func forgedSizeRefusedByTrailer() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let good = try scratch.compile("good.calldir", block: ["14085550000"], identify: ["18005550000,Caller"])
        let size = 1 << 30  // any size far above the bound below shows the body was read (issue 45: 3 GiB)
        var forger = Forger(bytes: Array(fileBytes(good).prefix(64)))
        forger.write(16, 8, UInt64(size))
        forger.write(60, 4, UInt64(Forger.crc(forger.bytes[0..<60])))
        let path = scratch.file("index.calldir")
        try Self.sparseFile(path, size: size, prefix: forger.bytes)
        let holder = IndexHolder(path: path, metrics: Metrics(), logger: quietLogger, retireWaitMilliseconds: 0)
        let before = Self.bytesRead()
        guard case .refused(let error) = holder.reload(reason: "test") else {
            Issue.record("a sparse file with a forged header was loaded")
            return
        }
        #expect(error.code == .corruptIndex)
        #expect(error.message.contains("trailer missing"), "\(error)")
        if let before, let after = Self.bytesRead() {
            #expect(after - before < 256 << 20, "read \(after - before) bytes before refusing")
        }
    }
}
