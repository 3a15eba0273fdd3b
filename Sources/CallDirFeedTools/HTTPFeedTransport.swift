import AsyncHTTPClient
import CallDirFeed
import NIOCore
import NIOHTTP1
import Synchronization

/// The deadlines of a follower's downloads (TUF's slow-retrieval attack: a server that sends a
/// byte now and then never trips an idle time-out). Every file, headers and body, must bring
/// `minimumRate` bytes a second averaged over each `window` (a small file that ends within the
/// window always passes), and the whole update ends by `total` (`update --timeout`).
package struct FeedDeadlines: Sendable {
    /// Bytes a second; the default lets a phone on a poor 2G link through (about 1% of it).
    package var minimumRate: Int64 = 1024
    package var window: TimeAmount = .seconds(30)
    /// The whole update: manifest, signature and the index or delta (80 MB at 100 kB/s fits).
    package var total: TimeAmount = .seconds(900)
    package init() {}
}

/// A feed served over HTTP(S), through AsyncHTTPClient: `calldir-serve update` and
/// `serve --follow`. A watchdog holds every file to the minimum rate and the update to its
/// total time (`FeedDeadlines`); a body is refused as soon as it passes the size the caller
/// allows (from Content-Length before any byte, or while it streams).
package struct HTTPFeedTransport: FeedTransport {
    package let base: String
    package let client: HTTPClient
    package let deadlines: FeedDeadlines
    /// The end of the whole update, from when this transport was made.
    package let deadline: NIODeadline

    /// `feedURL` names the feed folder ("https://cdn.example/feed" or ".../feed/").
    package init(feedURL: String, client: HTTPClient, deadlines: FeedDeadlines = FeedDeadlines()) {
        base = feedURL.hasSuffix("/") ? feedURL : feedURL + "/"
        self.client = client
        self.deadlines = deadlines
        deadline = .now() + deadlines.total
    }

    /// A client with the feed's connect time-out (the watchdog bounds everything after it).
    package static func makeClient(connectTimeout: TimeAmount = .seconds(10), readTimeout: TimeAmount = .seconds(30)) -> HTTPClient {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: connectTimeout, read: readTimeout))
        configuration.decompression = .disabled
        configuration.redirectConfiguration = .follow(max: 3, allowCycles: false)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    package func fetch(_ path: String, maxBytes: Int, ifNoneMatch: String?) async throws -> FeedFetched? {
        var bytes: [UInt8] = []
        let sink = FeedDownloadSink(path: base + path, size: Int64(maxBytes), sha256: "") { bytes.append(contentsOf: $0) }
        guard let headers = try await get(path, maxBytes: maxBytes, ifNoneMatch: ifNoneMatch, into: sink) else { return nil }
        // A "racily clean" answer: a file modified in the second the answer was made may be
        // replaced again within that second, and servers that derive the ETag from the
        // modification time and size (nginx) would then give the new manifest the same ETag:
        // a conditional request would miss it until the next publication. Not kept then.
        var etag = headers.first(name: "ETag")
        if let modified = headers.first(name: "Last-Modified"), modified == headers.first(name: "Date") { etag = nil }
        return FeedFetched(bytes: bytes, etag: etag)
    }

    package func location(_ path: String) -> String { base + path }

    package func download(_ path: String, maxBytes: Int, into sink: FeedDownloadSink) async throws {
        _ = try await get(path, maxBytes: maxBytes, ifNoneMatch: nil, into: sink)
    }

    /// The transfer and its watchdog side by side: whichever ends first ends the other.
    private func get(_ path: String, maxBytes: Int, ifNoneMatch: String?, into sink: FeedDownloadSink) async throws -> HTTPHeaders? {
        let url = base + path
        let received = Received()
        let box = SinkBox(sink: sink)  // used by the transfer task alone
        return try await withThrowingTaskGroup(of: Answer.self) { group in
            group.addTask {
                .headers(try await transfer(url, maxBytes: maxBytes, ifNoneMatch: ifNoneMatch, received: received, into: box.sink))
            }
            group.addTask {
                try await watch(url, received: received)
                return .headers(nil)
            }
            defer { group.cancelAll() }
            guard case .headers(let headers) = try await group.next()! else { return nil }
            return headers
        }
    }

    private enum Answer: Sendable { case headers(HTTPHeaders?) }

    private struct SinkBox: @unchecked Sendable { let sink: FeedDownloadSink }

    /// Bytes received so far, written by the transfer and read by the watchdog.
    private final class Received: Sendable {
        let count = Atomic<Int64>(0)
    }

    /// Fails the fetch (check `timeout`) when a window brings fewer bytes than the minimum rate
    /// asks, or the update's total time passes; runs until cancelled otherwise.
    private func watch(_ url: String, received: Received) async throws {
        let rate = deadlines.minimumRate
        let windowSeconds = max(1, deadlines.window.nanoseconds / 1_000_000_000)
        var countedBefore: Int64 = 0
        while true {
            let wake = min(NIODeadline.now() + deadlines.window, deadline), now = NIODeadline.now()
            try await Task.sleep(nanoseconds: wake > now ? wake.uptimeNanoseconds - now.uptimeNanoseconds : 0)
            if NIODeadline.now() >= deadline {
                throw FeedError(.timeout, "the update's time limit (--timeout \(deadlines.total.nanoseconds / 1_000_000_000) s) "
                                + "passed during this download", path: url)
            }
            let counted = received.count.load(ordering: .relaxed)
            if counted - countedBefore < rate * windowSeconds {
                throw FeedError(.timeout, "stalled: \(counted - countedBefore) bytes in \(windowSeconds) s, under the minimum of "
                                + "\(rate) bytes/s (a slow or trickling server); download aborted", path: url)
            }
            countedBefore = counted
        }
    }

    private func transfer(_ url: String, maxBytes: Int, ifNoneMatch: String?, received: Received,
                          into sink: FeedDownloadSink) async throws -> HTTPHeaders? {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: "calldir-feed/1")
        if let ifNoneMatch { request.headers.add(name: "If-None-Match", value: ifNoneMatch) }
        do {
            let response = try await client.execute(request, deadline: deadline)
            switch response.status.code {
            case 200: break
            case 304 where ifNoneMatch != nil: return nil
            case 404, 410: throw FeedError(.missing, "the server answered \(response.status.code): the feed has no such file", path: url)
            default:
                throw FeedError(.transport, "the server answered \(response.status.code) \(response.status.reasonPhrase)",
                                path: url)
            }
            if let length = response.headers.first(name: "Content-Length").flatMap(Int64.init), length > Int64(maxBytes) {
                throw FeedError(.size, "the server announces \(length) bytes; the manifest allows \(maxBytes); not downloaded", path: url)
            }
            for try await buffer in response.body {
                try buffer.withUnsafeReadableBytes { try sink.append($0) }
                received.count.add(Int64(buffer.readableBytes), ordering: .relaxed)
            }
            return response.headers
        } catch let error as FeedError {
            throw error
        } catch let error as HTTPClientError where error == .readTimeout {
            // The client's read time-out is the stall window too: on a loaded machine it can
            // fire before the watchdog does, for the same trickling server. Same verdict.
            throw FeedError(.timeout, "stalled: no byte in \(max(1, deadlines.window.nanoseconds / 1_000_000_000)) s "
                            + "(a slow or trickling server); download aborted", path: url)
        } catch let error as HTTPClientError where [.deadlineExceeded, .connectTimeout].contains(error) {
            throw FeedError(.timeout, "the server did not answer in time (\(error))", path: url)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw FeedError(.transport, "\(error)", path: url)
        }
    }
}
