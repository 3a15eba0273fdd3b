import Foundation
@_exported import TestSupport
import TestSupport

/// Runs the built executables, compiles small indexes, and starts the feed's servers.
enum FeedBin {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

    static func path(_ name: String) -> String {
        if let explicit = ProcessInfo.processInfo.environment["CALLDIR_BIN"] {
            return URL(fileURLWithPath: explicit).deletingLastPathComponent().appendingPathComponent(name).path
        }
        return packageRoot.appendingPathComponent(".build/debug/\(name)").path
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Still running after the time limit, so killed (a hang, not an answer).
        var killed = false
    }

    /// `calldir ARGS`, as a user or cron runs it; killed after `limit` seconds (a test of a
    /// deadline must end even when the deadline does not).
    static func run(_ arguments: [String], binary: String = "calldir", limit: Double? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path(binary))
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let killed = Killed()
        if let limit {
            DispatchQueue.global().asyncAfter(deadline: .now() + limit) {
                if process.isRunning { killed.lock.withLock { killed.value = true }; kill(process.processIdentifier, SIGKILL) }
            }
        }
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                      stderr: String(decoding: stderrData, as: UTF8.self), killed: killed.lock.withLock { killed.value })
    }

    /// Sorted national NANP numbers (--country 1): `count` of them, from a seeded generator.
    static func numbers(count: Int, seed: UInt64) -> [Int64] {
        var rng = SeededGenerator(seed: seed)
        var set = Set<Int64>()
        while set.count < count {
            let area = Int64.random(in: 201...989, using: &rng), exchange = Int64.random(in: 201...989, using: &rng)
            set.insert(area * 10_000_000 + exchange * 10_000 + Int64.random(in: 0...9999, using: &rng))
        }
        return set.sorted()
    }

    /// Compiles `numbers` into `folder/name`; returns its path.
    @discardableResult
    static func compile(_ numbers: [Int64], in folder: TempFolder, name: String) throws -> String {
        let list = folder.write(name + ".txt", numbers.map(String.init))
        let output = folder.file(name)
        let result = try run(["compile", "--country", "1", "--block", list, "-o", output])
        guard result.status == 0 else { throw TestFailure("compile failed: \(result.stderr)") }
        return output
    }

    /// A list with `churn` of its numbers replaced by new ones.
    static func churned(_ numbers: [Int64], fraction: Double, seed: UInt64) -> [Int64] {
        var rng = SeededGenerator(seed: seed)
        var kept = numbers.filter { _ in Double.random(in: 0..<1, using: &rng) >= fraction }
        kept += FeedBin.numbers(count: numbers.count - kept.count, seed: seed &+ 17)
        return Array(Set(kept)).sorted()
    }

    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// Alters one byte of the file at `offset` (default: its middle): '0' and '1' swap, any
    /// other byte becomes '0', so a hex digit stays a hex digit (a signature still parses).
    static func flip(_ path: String, at offset: Int? = nil) throws {
        var bytes = FeedBin.bytes(path)!
        let at = offset ?? bytes.count / 2
        bytes[at] = bytes[at] == 0x30 ? 0x31 : 0x30
        try bytes.write(to: URL(fileURLWithPath: path))
    }
}

final class Killed: @unchecked Sendable {  // guarded by lock
    let lock = NSLock()
    var value = false
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A child process (a server) stopped on `stop()`.
final class ChildServer: @unchecked Sendable {
    let process: Process
    let port: Int
    init(process: Process, port: Int) { self.process = process; self.port = port }
    var url: String { "http://127.0.0.1:\(port)" }
    func stop() {
        if process.isRunning { process.terminate() }
        for _ in 0..<100 where process.isRunning { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// A free TCP port on 127.0.0.1 (bound, read, released).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func waitUntilListening(_ port: Int) -> Bool {
        for _ in 0..<200 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let ok = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            } == 0
            close(fd)
            if ok { return true }
            usleep(25_000)
        }
        return false
    }

    static let nginxPath = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// nginx (Debian's package) serving `root` on 127.0.0.1 with a private configuration and
    /// prefix in `scratch` (never the system's configuration, never port 80); nil when absent.
    static func nginx(root: String, scratch: TempFolder) throws -> ChildServer? {
        guard let nginx = nginxPath else { return nil }
        let port = freePort()
        // nginx started by root serves as "nobody": the scratch folder (mkdtemp, 0700) must be readable.
        chmod(scratch.path, 0o755)
        let prefix = scratch.file("nginx")
        try FileManager.default.createDirectory(atPath: prefix + "/logs", withIntermediateDirectories: true)
        let config = scratch.write("nginx.conf", """
        worker_processes 1;
        daemon off;
        pid \(prefix)/nginx.pid;
        error_log \(prefix)/logs/error.log warn;
        events { worker_connections 256; }
        http {
            access_log off;
            client_body_temp_path \(prefix)/client_body;
            proxy_temp_path \(prefix)/proxy;
            fastcgi_temp_path \(prefix)/fastcgi;
            uwsgi_temp_path \(prefix)/uwsgi;
            scgi_temp_path \(prefix)/scgi;
            types { application/json json; }
            default_type application/octet-stream;
            server {
                listen 127.0.0.1:\(port);
                root \(root);
                etag on;
            }
        }
        """)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", prefix, "-c", config, "-e", prefix + "/logs/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let server = ChildServer(process: process, port: port)
        guard waitUntilListening(port) else {
            server.stop()
            throw TestFailure("nginx did not start: \(String(decoding: FileManager.default.contents(atPath: prefix + "/logs/error.log") ?? Data(), as: UTF8.self))")
        }
        return server
    }

    /// The hostile server (Fixtures/hostile_feed_server.py) serving `root`; its rules are
    /// `rules.json` beside `root`.
    static func hostile(root: String) throws -> ChildServer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", FeedBin.fixtures + "/hostile_feed_server.py", root]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while true {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line += byte
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw TestFailure("the hostile server did not start (python3 missing?)")
        }
        return ChildServer(process: process, port: port)
    }
}
