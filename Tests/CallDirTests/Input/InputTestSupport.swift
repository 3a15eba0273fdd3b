import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader
import TestSupport

/// One row copied out of a source, for assertions.
struct CollectedRow: Equatable, CustomStringConvertible {
    var line: Int
    var number: String
    var label: String?

    init(_ line: Int, _ number: String, _ label: String? = nil) {
        self.line = line
        self.number = number
        self.label = label
    }

    var description: String { "\(line): \(number) | \(label ?? "nil")" }
}

/// Reads every row of a source into memory (tests only).
func collectRows(_ source: any EntrySource) throws -> [CollectedRow] {
    var rows: [CollectedRow] = []
    try source.forEachRow { row in
        rows.append(CollectedRow(row.line, String(decoding: row.number, as: UTF8.self),
                                 row.label.map { String(decoding: $0, as: UTF8.self) }))
    }
    return rows
}

/// The error a throwing call raised, as a `CallDirError` (fails the test if it is another type
/// or if nothing was thrown).
func callDirError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> CallDirError? {
    do {
        try body()
        Issue.record("expected a CallDirError, but nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as CallDirError {
        return error
    } catch {
        Issue.record("expected a CallDirError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Runs `body` with a fresh temporary directory, removed afterwards. (A scope, not a deinit:
/// ARC may release an object right after its last use, before the files are read.)
func withTempDir<T>(_ body: (TempDir) throws -> T) throws -> T {
    let dir = try TempDir()
    defer { try? FileManager.default.removeItem(at: dir.url) }
    return try body(dir)
}

/// A temporary directory; see `withTempDir`.
final class TempDir {
    let url: URL

    fileprivate init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("calldir-inputs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try write(name, Data(text.utf8))
    }

    @discardableResult
    func write(_ name: String, _ data: Data) throws -> String {
        let path = path(name)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Compresses `name` with the real `gzip` command into `name.gz` (keeping the original).
    @discardableResult
    func gzip(_ name: String) throws -> String {
        let output = path(name + ".gz")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c", "-n", path(name)]
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardOutput = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        #expect(process.terminationStatus == 0, "gzip failed")
        return output
    }

    func read(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path(name))) }
}

/// Real lists shipped next to the package: `<package>/../shared/realdata`.
enum RealData {
    static let directory = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/realdata").path

    static func path(_ file: String) -> String { directory + "/" + file }
    static func exists(_ file: String) -> Bool { FileManager.default.fileExists(atPath: path(file)) }
}

/// Writes `data` into a new pipe from a background thread and returns the read end, which the
/// caller closes. Lets tests feed a source exactly as stdin would.
func pipeFeeding(_ data: Data) -> Int32 {
    var fds: [Int32] = [0, 0]
    precondition(pipe(&fds) == 0, "pipe() failed")
    let writeEnd = fds[1]
    Thread.detachNewThread {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                // Small writes, so the reader sees partial chunks as from a real pipe.
                let n = write(writeEnd, raw.baseAddress! + offset, min(1000, raw.count - offset))
                if n <= 0 { break }
                offset += n
            }
        }
        close(writeEnd)
    }
    return fds[0]
}
