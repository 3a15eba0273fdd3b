import Foundation
import Testing
@testable import CallDir

/// Reads a whole stream through small reads (so chunk boundaries are exercised).
private func drain(_ stream: ByteStream, chunk: Int = 997) throws -> Data {
    var result = Data()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 1)
    defer { buffer.deallocate() }
    while true {
        let n = try stream.read(into: buffer)
        if n == 0 { return result }
        result.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
    }
}

/// Deterministic text that compresses but not trivially: numbered lines.
private func sampleText(lines: Int, prefix: String = "+4121") -> String {
    (0..<lines).map { "\(prefix)\(String(format: "%07d", ($0 * 7919) % 10_000_000))\tcaller \($0)\n" }.joined()
}

@Suite("Input: byte stream and gzip")
struct InputByteStreamTests {
    @Test func plainFileIsReadUnchanged() throws {
        try withTempDir { dir in
            let text = sampleText(lines: 30_000)  // ~800 KB: several reads
            let path = try dir.write("plain.txt", text)
            let stream = ByteStream(file: try InputFile.open(path: path))
            #expect(try stream.isGzip == false)
            #expect(try drain(stream) == Data(text.utf8))
        }
    }

    @Test func gzipFileIsDecompressedByMagicNotName() throws {
        try withTempDir { dir in
            let text = sampleText(lines: 30_000)
            try dir.write("list.txt", text)
            let gz = try dir.gzip("list.txt")
            // A misleading name: detection must use the bytes.
            let renamed = dir.path("list.csv")
            try FileManager.default.moveItem(atPath: gz, toPath: renamed)
            let stream = ByteStream(file: try InputFile.open(path: renamed))
            #expect(try stream.isGzip)
            #expect(try drain(stream, chunk: 4093) == Data(text.utf8))
        }
    }

    @Test func concatenatedGzipMembersReadAsOneStream() throws {
        try withTempDir { dir in
            let a = sampleText(lines: 5_000, prefix: "+4122")
            let b = sampleText(lines: 7_000, prefix: "+4131")
            try dir.write("a.txt", a)
            try dir.write("b.txt", b)
            try dir.gzip("a.txt")
            try dir.gzip("b.txt")
            var joined = try dir.read("a.txt.gz")
            joined.append(try dir.read("b.txt.gz"))
            let path = try dir.write("ab.gz", joined)
            let rows = try collectRows(try TextListSource(path: path))
            #expect(rows.count == 12_000)
            #expect(rows[4_999].number.hasPrefix("+4122"))
            #expect(rows[5_000] == CollectedRow(5_001, "+41310000000", "caller 0"))
            #expect(rows.last?.line == 12_000)
        }
    }

    @Test func truncatedGzipIsAnErrorNamingTheFile() throws {
        try withTempDir { dir in
            try dir.write("list.txt", sampleText(lines: 20_000))
            try dir.gzip("list.txt")
            let whole = try dir.read("list.txt.gz")
            for cut in [1, 5, 100, whole.count / 2] {
                let path = try dir.write("cut\(cut).gz", whole.prefix(whole.count - cut))
                let error = callDirError { _ = try collectRows(try TextListSource(path: path)) }
                #expect(error?.code == .badInput)
                #expect(error?.path == path)
                #expect(error?.message.hasPrefix("truncated gzip data") == true, "\(String(describing: error))")
            }
        }
    }

    @Test func corruptGzipIsAnErrorWithZlibsReason() throws {
        try withTempDir { dir in
            try dir.write("list.txt", sampleText(lines: 20_000))
            try dir.gzip("list.txt")
            var bytes = try dir.read("list.txt.gz")
            bytes[bytes.count / 2] ^= 0xFF
            let path = try dir.write("flipped.gz", bytes)
            let error = callDirError { _ = try collectRows(try TextListSource(path: path)) }
            #expect(error?.code == .badInput)
            #expect(error?.path == path)
            #expect(error?.message.hasPrefix("corrupt gzip data: ") == true, "\(String(describing: error))")
        }
    }

    @Test func garbageAfterAGzipMemberIsCorruptData() throws {
        try withTempDir { dir in
            try dir.write("list.txt", "+41215601234\n")
            try dir.gzip("list.txt")
            var bytes = try dir.read("list.txt.gz")
            bytes.append(contentsOf: Array("not gzip".utf8))
            let path = try dir.write("trailing.gz", bytes)
            let error = callDirError { _ = try collectRows(try TextListSource(path: path)) }
            #expect(error?.message.contains("corrupt gzip data: incorrect header check") == true,
                    "\(String(describing: error))")
        }
    }

    @Test func pipeDeliversPlainAndGzipLikeStdin() throws {
        try withTempDir { dir in
            let text = sampleText(lines: 3_000)
            try dir.write("list.txt", text)
            try dir.gzip("list.txt")
            let gzipped = try dir.read("list.txt.gz")
            for payload in [Data(text.utf8), gzipped] {
                let fd = pipeFeeding(payload)
                defer { close(fd) }
                let stream = ByteStream(file: InputFile(descriptor: fd, name: "<stdin>", ownsDescriptor: false))
                #expect(try stream.isGzip == (payload == gzipped))
                #expect(try drain(stream) == Data(text.utf8))
            }
        }
    }

    @Test func peekedBytesAreReplayed() throws {
        try withTempDir { dir in
            let text = sampleText(lines: 2_000)
            try dir.write("list.txt", text)
            let stream = ByteStream(file: try InputFile.open(path: try dir.gzip("list.txt")))
            let head = try stream.peek(count: 10)
            #expect(Array(head) == Array("+412100000".utf8))
            #expect(try stream.peek(count: 100).count == 100)  // growing the peek keeps the bytes
            #expect(try drain(stream) == Data(text.utf8))
        }
    }

    @Test func tinyAndEmptyFiles() throws {
        try withTempDir { dir in
            let empty = try dir.write("empty.txt", "")
            #expect(try collectRows(try TextListSource(path: empty)).isEmpty)
            let one = try dir.write("one.txt", "7")  // one byte: too short for the gzip check
            #expect(try collectRows(try TextListSource(path: one)) == [CollectedRow(1, "7")])
            let magicOnly = try dir.write("magic.gz", Data([0x1f, 0x8b]))
            let error = callDirError { _ = try collectRows(try TextListSource(path: magicOnly)) }
            #expect(error?.message.hasPrefix("truncated gzip data") == true)
        }
    }

    @Test func missingFileAndDirectoryAreIOErrors() throws {
        try withTempDir { dir in
            let missing = dir.path("nope.txt")
            let error = callDirError { _ = try TextListSource(path: missing) }
            #expect(error?.code == .io)
            #expect(error?.path == missing)
            #expect(error?.message.contains("No such file or directory") == true)
            let dirError = callDirError { _ = try TextListSource(path: dir.url.path) }
            #expect(dirError?.code == .io)
            #expect(dirError?.message.contains("is a directory") == true)
        }
    }

    @Test func readFailureIsAnIOErrorNamingTheInput() throws {
        try withTempDir { dir in
            let fd = open(dir.url.path, O_RDONLY)  // read() on a directory fails with EISDIR
            #expect(fd >= 0)
            defer { close(fd) }
            let stream = ByteStream(file: InputFile(descriptor: fd, name: "dir-as-file", ownsDescriptor: false))
            let error = callDirError { _ = try drain(stream) }
            #expect(error?.code == .io)
            #expect(error?.path == "dir-as-file")
            #expect(error?.message.hasPrefix("cannot read: Is a directory") == true)
        }
    }

    @Test func pathSourcesRereadButPipesOnlyOnce() throws {
        try withTempDir { dir in
            let path = try dir.write("list.txt", "+41215601234\n+41215605678\n")
            let source = try TextListSource(path: path)
            #expect(try collectRows(source).count == 2)
            #expect(try collectRows(source).count == 2)

            let fd = pipeFeeding(Data("+41215601234\n".utf8))
            defer { close(fd) }
            let piped = TextListSource(origin: InputOrigin(descriptor: fd, name: "<stdin>"), options: .init())
            #expect(try collectRows(piped) == [CollectedRow(1, "+41215601234")])
            let error = callDirError { _ = try collectRows(piped) }
            #expect(error?.code == .io)
            #expect(error?.path == "<stdin>")
        }
    }
}
