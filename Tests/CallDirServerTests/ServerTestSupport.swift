import CallDir
import CallDirLookup
import CallDirServer
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import CallDirReader
@_exported import TestSupport
import TestSupport

extension TempFolder {
    /// Compiles an index from blocking lines and `number,label` lines.
    @discardableResult
    func compile(_ name: String, block: [String] = [], identify: [String] = [], buildTime: Int64 = 0) throws -> String {
        var options = CompileOptions(output: file(name))
        if !block.isEmpty { options.blockSources = [.file(write(name + ".block.txt", block.joined(separator: "\n") + "\n"))] }
        if !identify.isEmpty {
            options.identifySources = [.file(write(name + ".identify.txt", identify.joined(separator: "\n") + "\n"))]
        }
        options.buildTime = buildTime
        _ = try Compiler(options: options, onDiagnostic: { _ in }).run()
        return file(name)
    }

    /// Publishes `source` at `target` the way a compile does: a copy next to it, renamed over it.
    func publish(_ source: String, as target: String, damage: Bool = false) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        if damage { bytes[bytes.count / 2] ^= 0x5A }
        let temporary = target + ".tmp"
        try bytes.write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, target) == 0 else { throw CallDirError(.io, "rename failed", path: target) }
    }
}

/// The daemon's router over the index at `path` (loaded and verified), with `--country 1` and
/// `policy`: routing without sockets.
func countryOneRouter(index path: String, policy: CallerIDPolicy) throws -> Router {
    let metrics = Metrics()
    let holder = IndexHolder(path: path, metrics: metrics, logger: quietLogger)
    holder.reload(reason: "test")
    return Router(holder: holder, metrics: metrics, limits: ServerLimits(), normalizer: try NumberNormalizer(country: 1),
                  policy: policy)
}

/// The sample index most tests use: exact blocks, a blocked wildcard range, labels, one number
/// both blocked and labelled.
func sampleIndex(_ scratch: TempFolder, buildTime: Int64 = 0) throws -> String {
    try scratch.compile(
        "sample.calldir",
        block: ["14085555555", "16465550123", "18005555555", "1900555####"],
        identify: ["14085555555,Spam risk", "18775555555,Telemarketer", "18885555555,Local business"],
        buildTime: buildTime)
}

let quietLogger = Logger(label: "calldir.test", factory: { _ in SwiftLogNoOpLogHandler() })

/// Starts a real server on 127.0.0.1 with an ephemeral port and no polling or signals.
func startServer(index: String, _ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> LookupServer {
    var config = ServerConfiguration(indexPath: index)
    config.port = 0
    config.threads = 2
    config.pollIntervalNanoseconds = 0
    configure(&config)
    let server = try LookupServer(configuration: config, logger: quietLogger)
    try server.start()
    return server
}

extension LookupServer {
    func stopAndWait() {
        stop(reason: "test")
        waitUntilStopped()
    }
}

let clientGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)

struct HTTPAnswer: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: String

    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }

    /// The body parsed as a JSON object (empty when it is not one).
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
    }
}

struct ConnectionClosed: Error {}

/// A real HTTP/1.1 client on NIO (NIOHTTP1's encoder and decoder), one keep-alive connection,
/// blocking calls: enough for tests, and a second HTTP implementation checking the server's.
final class TestHTTPClient: Sendable {
    let channel: any Channel
    private let collector: ResponseCollector

    init(port: Int) throws {
        let collector = ResponseCollector()
        channel = try ClientBootstrap(group: clientGroup)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(collector)
                }
            }
            .connect(host: "127.0.0.1", port: port).wait()
        self.collector = collector
    }

    func request(_ method: HTTPMethod, _ uri: String, body: String? = nil, headers: [(String, String)] = []) throws -> HTTPAnswer {
        let channel = channel
        let collector = collector
        let answer = channel.eventLoop.flatSubmit { () -> EventLoopFuture<HTTPAnswer> in
            guard channel.isActive else { return channel.eventLoop.makeFailedFuture(ConnectionClosed()) }
            let promise = channel.eventLoop.makePromise(of: HTTPAnswer.self)
            collector.pending.append(promise)
            var head = HTTPRequestHead(version: .http1_1, method: method, uri: uri)
            head.headers.add(name: "host", value: "127.0.0.1")
            for (name, value) in headers { head.headers.add(name: name, value: value) }
            if let body { head.headers.add(name: "content-length", value: String(body.utf8.count)) }
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(string: body))), promise: nil) }
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            return promise.futureResult
        }
        return try answer.wait()
    }

    func get(_ uri: String) throws -> HTTPAnswer { try request(.GET, uri) }
    func post(_ uri: String, _ body: String) throws -> HTTPAnswer { try request(.POST, uri, body: body) }

    func close() { try? channel.close().wait() }
}

/// Collects response parts into answers, in request order. Only touched on its event loop.
final class ResponseCollector: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    var pending: [EventLoopPromise<HTTPAnswer>] = []
    private var current: HTTPAnswer?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            current = HTTPAnswer(status: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) }, body: "")
        case .body(let buffer):
            current?.body += String(buffer: buffer)
        case .end:
            if let answer = current, !pending.isEmpty { pending.removeFirst().succeed(answer) }
            current = nil
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        for promise in pending { promise.fail(ConnectionClosed()) }
        pending.removeAll()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}

/// A plain TCP socket for what no well-behaved client sends: partial requests, oversize
/// headers, garbage. `readUntilClosed` returns what the server wrote before closing.
struct RawConnection {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw ConnectionClosed() }
        // A safety net so a broken server fails the test instead of hanging it; not an assertion.
        var limit = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends bytes; false when the server already closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) == $0.count }
    }

    /// What one recv() returns (waits for the first bytes).
    func readSome() -> String {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
    }

    func readUntilClosed() -> String {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    func close() { Glibc.close(fd) }
}

/// Starts `calldir serve` on `index` (port 0) under a descriptor limit, its stderr to `log`.
func startServe(index: String, descriptorLimit: Int, threads: Int, log: String) throws -> Process {
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" serve --index \"$1\" --port 0 --threads \(threads) --poll-interval 0",
                         ServeProcessTests.binary, index]
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    try process.run()
    return process
}
