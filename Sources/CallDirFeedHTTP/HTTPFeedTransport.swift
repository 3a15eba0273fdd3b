import AsyncHTTPClient
import CallDirFeed
import NIOCore
import NIOHTTP1

/// A feed served over HTTP(S), through AsyncHTTPClient: `calldir-serve update` and
/// `serve --follow`. The connect and idle-read time-outs bound a slow or silent server; a
/// whole small file has a deadline; a body is refused as soon as it passes the size the
/// caller allows (from Content-Length before any byte, or while it streams).
package struct HTTPFeedTransport: FeedTransport {
    package let base: String
    package let client: HTTPClient
    package let fileDeadline: TimeAmount

    /// `feedURL` names the feed folder ("https://cdn.example/feed" or ".../feed/").
    package init(feedURL: String, client: HTTPClient, fileDeadline: TimeAmount = .seconds(60)) {
        base = feedURL.hasSuffix("/") ? feedURL : feedURL + "/"
        self.client = client
        self.fileDeadline = fileDeadline
    }

    /// A client with the feed's time-outs (connect, and silence while reading).
    package static func makeClient(connectTimeout: TimeAmount = .seconds(10), readTimeout: TimeAmount = .seconds(30)) -> HTTPClient {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: connectTimeout, read: readTimeout))
        configuration.decompression = .disabled
        configuration.redirectConfiguration = .follow(max: 3, allowCycles: false)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    package func fetch(_ path: String, maxBytes: Int, ifNoneMatch: String?) async throws -> FeedFetched? {
        var bytes: [UInt8] = []
        let sink = FeedDownloadSink(path: base + path, size: Int64(maxBytes), sha256: "") { bytes.append(contentsOf: $0) }
        let response = try await get(path, maxBytes: maxBytes, ifNoneMatch: ifNoneMatch, deadline: .now() + fileDeadline, into: sink)
        guard let response else { return nil }
        // A "racily clean" answer: a file modified in the second the answer was made may be
        // replaced again within that second, and servers that derive the ETag from the
        // modification time and size (nginx) would then give the new manifest the same ETag:
        // a conditional request would miss it until the next publication. Not kept then.
        var etag = response.headers.first(name: "ETag")
        if let modified = response.headers.first(name: "Last-Modified"), modified == response.headers.first(name: "Date") { etag = nil }
        return FeedFetched(bytes: bytes, etag: etag)
    }

    package func location(_ path: String) -> String { base + path }

    package func download(_ path: String, maxBytes: Int, into sink: FeedDownloadSink) async throws {
        // No overall deadline for a large file: the idle-read time-out bounds a stalled server,
        // the size a never-ending one.
        _ = try await get(path, maxBytes: maxBytes, ifNoneMatch: nil, deadline: .now() + .hours(24), into: sink)
    }

    private func get(_ path: String, maxBytes: Int, ifNoneMatch: String?, deadline: NIODeadline,
                     into sink: FeedDownloadSink) async throws -> HTTPClientResponse? {
        let url = base + path
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: "calldir-feed/1")
        if let ifNoneMatch { request.headers.add(name: "If-None-Match", value: ifNoneMatch) }
        do {
            let response = try await client.execute(request, deadline: deadline)
            switch response.status.code {
            case 200: break
            case 304 where ifNoneMatch != nil: return nil
            case 404, 410: throw FeedError(.missing, "the server answered \(response.status.code): the feed has no such file", path: url)
            default: throw FeedError(.transport, "the server answered \(response.status.code) \(response.status.reasonPhrase)", path: url)
            }
            if let length = response.headers.first(name: "Content-Length").flatMap(Int64.init), length > Int64(maxBytes) {
                throw FeedError(.size, "the server announces \(length) bytes; the manifest allows \(maxBytes); not downloaded", path: url)
            }
            for try await buffer in response.body {
                try buffer.withUnsafeReadableBytes { try sink.append($0) }
            }
            return response
        } catch let error as FeedError {
            throw error
        } catch let error as HTTPClientError where [.readTimeout, .deadlineExceeded, .connectTimeout].contains(error) {
            throw FeedError(.timeout, "the server did not answer in time (\(error))", path: url)
        } catch {
            throw FeedError(.transport, "\(error)", path: url)
        }
    }
}
