#if os(iOS)
import CallDirFeed
import Foundation

/// The feed's transport on iOS: URLSession, streaming each file into the follower's sink
/// (which counts it against the size the signed manifest announces and hashes it), so a
/// large index never sits in memory and a server that sends more is cut off at once. Linux
/// tests use the folder and AsyncHTTPClient transports through the same `FeedTransport`.
public struct URLSessionFeedTransport: FeedTransport {
    public let base: URL
    public let session: URLSession

    /// `feedURL` names the feed folder ("https://cdn.example/feed/").
    public init(feedURL: URL, session: URLSession = .shared) {
        base = feedURL.absoluteString.hasSuffix("/") ? feedURL : URL(string: feedURL.absoluteString + "/")!
        self.session = session
    }

    public func location(_ path: String) -> String { base.appendingPathComponent(path).absoluteString }

    public func fetch(_ path: String, maxBytes: Int, ifNoneMatch: String?) async throws -> FeedFetched? {
        var bytes: [UInt8] = []
        let sink = FeedDownloadSink(path: location(path), size: Int64(maxBytes), sha256: "") { bytes.append(contentsOf: $0) }
        guard let response = try await get(path, maxBytes: maxBytes, ifNoneMatch: ifNoneMatch, timeout: 60, into: sink) else {
            return nil
        }
        return FeedFetched(bytes: bytes, etag: response.value(forHTTPHeaderField: "ETag"))
    }

    public func download(_ path: String, maxBytes: Int, into sink: FeedDownloadSink) async throws {
        _ = try await get(path, maxBytes: maxBytes, ifNoneMatch: nil, timeout: 30, into: sink)
    }

    /// GET `path`; nil for "not modified". `timeout` is URLSession's idle time-out (no byte for
    /// that long); the size bound stops a server that never ends.
    private func get(_ path: String, maxBytes: Int, ifNoneMatch: String?, timeout: TimeInterval,
                     into sink: FeedDownloadSink) async throws -> HTTPURLResponse? {
        let url = base.appendingPathComponent(path)
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.setValue("calldir-feed/1", forHTTPHeaderField: "User-Agent")
        if let ifNoneMatch { request.setValue(ifNoneMatch, forHTTPHeaderField: "If-None-Match") }
        let (stream, response): (URLSession.AsyncBytes, URLResponse)
        do {
            (stream, response) = try await session.bytes(for: request)
        } catch let error as URLError where error.code == .timedOut {
            throw FeedError(.timeout, "the server did not answer in time", path: url.absoluteString)
        } catch {
            throw FeedError(.transport, "\(error)", path: url.absoluteString)
        }
        guard let http = response as? HTTPURLResponse else {
            throw FeedError(.transport, "not an HTTP answer", path: url.absoluteString)
        }
        switch http.statusCode {
        case 200: break
        case 304 where ifNoneMatch != nil: return nil
        case 404, 410: throw FeedError(.missing, "the server answered \(http.statusCode): the feed has no such file", path: url.absoluteString)
        default: throw FeedError(.transport, "the server answered \(http.statusCode)", path: url.absoluteString)
        }
        if http.expectedContentLength > Int64(maxBytes) {
            throw FeedError(.size, "the server announces \(http.expectedContentLength) bytes; the manifest allows \(maxBytes)",
                            path: url.absoluteString)
        }
        var chunk: [UInt8] = []
        chunk.reserveCapacity(1 << 16)
        do {
            for try await byte in stream {
                chunk.append(byte)
                if chunk.count == 1 << 16 {
                    try chunk.withUnsafeBytes { try sink.append($0) }
                    chunk.removeAll(keepingCapacity: true)
                }
            }
        } catch let error as URLError where error.code == .timedOut {
            throw FeedError(.timeout, "the server stopped sending", path: url.absoluteString)
        }
        try chunk.withUnsafeBytes { try sink.append($0) }
        return http
    }
}
#endif
