import CallDir
import CallDirServer
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import CallDirReader

/// The real server on 127.0.0.1 (ephemeral port), queried by a real HTTP client.
@Suite("Server over HTTP")
struct ServerIntegrationTests {
    /// A stand-in for the router, as the benchmarks' constant-response server uses.
    struct Fixed: Responder {
        func respond(method: HTTPMethod, uri: String, body: ByteBuffer?, headers: HTTPHeaders) -> Response {
            Response(status: .ok, body: ByteBuffer(string: "fixed \(uri)"), contentType: "text/plain", route: .other)
        }
    }

    @Test("a configured responder answers instead of the router, through the same pipeline")
    func responder() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let server = try startServer(index: try sampleIndex(scratch)) { $0.responder = Fixed() }
        defer { server.stopAndWait() }
        let client = try TestHTTPClient(port: server.port)
        defer { client.close() }
        let answer = try client.get("/v1/lookup/18005555555")
        #expect(answer.status == 200 && answer.body == "fixed /v1/lookup/18005555555")
        #expect(try client.get("/metrics").body == "fixed /metrics")
    }

    @Test("every route and status through one keep-alive connection")
    func routes() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let server = try startServer(index: try sampleIndex(scratch))
        defer { server.stopAndWait() }
        let client = try TestHTTPClient(port: server.port)
        defer { client.close() }

        let blocked = try client.get("/v1/lookup/18005555555")
        #expect(blocked.status == 200)
        #expect(blocked.header("content-type") == "application/json")
        #expect(blocked.json["action"] as? String == "block")
        #expect((blocked.json["index"] as? [String: Any])?["checksum"] as? String == server.holder.snapshot?.checksum)

        #expect(try client.get("/v1/lookup/%2B1%20877%20555-5555").json["label"] as? String == "Telemarketer")
        #expect(try client.get("/v1/lookup/+1-212-555-0000").json["action"] as? String == "allow")
        #expect(try client.get("/v1/lookup/1900-555-1234").json["blockedMatch"] as? String == "range")

        let invalid = try client.get("/v1/lookup/5555")  // 555 is an emergency number (Somalia)
        #expect(invalid.status == 200)
        #expect(invalid.json["reason"] as? String == "too-short")
        #expect(try client.request(.GET, "/v1/lookup/18005555555", headers: [("Accept", "text/plain")]).body == "block\n")  // a 5th block
        #expect(try client.get("/v1/lookup/%zz").status == 400)
        #expect(try client.get("/nowhere").status == 404)
        let wrongMethod = try client.request(.DELETE, "/v1/lookup/18005555555")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.header("allow") == "GET, HEAD")
        let head = try client.request(.HEAD, "/healthz")
        #expect(head.status == 200 && head.body.isEmpty)

        let batch = try client.post("/v1/lookup", #"["18005555555", "+1 877 555 5555", 12125550000, "x"]"#)
        #expect(batch.status == 200)
        let results = batch.json["results"] as? [[String: Any]] ?? []
        #expect(results.map { $0["action"] as? String } == ["block", "identify", "allow", "allow"])
        let text = try client.post("/v1/lookup", "18005555555\n+1 877 555 5555\n")
        #expect((text.json["results"] as? [[String: Any]])?.count == 2)
        #expect(try client.post("/v1/lookup", "[1,").status == 400)
        let tooMany = try client.post("/v1/lookup", String(repeating: "18005555555\n", count: 10_001))
        #expect(tooMany.status == 413)
        #expect(tooMany.json["error"] as? String == "batch-too-large")

        let health = try client.get("/healthz")
        #expect(health.status == 200 && health.json["status"] as? String == "ready")
        let metrics = try client.get("/metrics")
        #expect(metrics.header("content-type")?.hasPrefix("text/plain") == true)
        #expect(metrics.body.contains(#"calldir_http_requests_total{route="lookup",status="400"} 1"#))
        #expect(metrics.body.contains(#"calldir_http_requests_total{route="batch",status="413"} 1"#))
        #expect(metrics.body.contains(#"calldir_lookups_total{result="block"} 5"#))
    }

    @Test("a body over the limit is a 413 and the connection closes, by Content-Length or while streaming")
    func oversizeBodies() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let server = try startServer(index: try sampleIndex(scratch)) { $0.limits.maxBodyBytes = 1000 }
        defer { server.stopAndWait() }

        let client = try TestHTTPClient(port: server.port)
        let declared = try client.post("/v1/lookup", String(repeating: "18005555555\n", count: 100))
        #expect(declared.status == 413)
        #expect(declared.header("connection") == "close")
        #expect(declared.json["error"] as? String == "body-too-large")
        client.close()

        let raw = try RawConnection(port: server.port)
        defer { raw.close() }
        raw.send("POST /v1/lookup HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = String(repeating: "18005555555\n", count: 40)
        for _ in 0..<5 { raw.send(String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n") }
        let answer = raw.readUntilClosed()
        #expect(answer.hasPrefix("HTTP/1.1 413"))
    }

    @Test("Expect: 100-continue is answered at once, so a client does not wait before sending its batch")
    func expectContinue() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let server = try startServer(index: try sampleIndex(scratch))
        defer { server.stopAndWait() }
        let raw = try RawConnection(port: server.port)
        defer { raw.close() }
        let body = "18005555555\n18775555555\n"
        raw.send("POST /v1/lookup HTTP/1.1\r\nHost: x\r\nConnection: close\r\nExpect: 100-continue\r\n"
                 + "Content-Length: \(body.utf8.count)\r\n\r\n")
        #expect(raw.readSome().hasPrefix("HTTP/1.1 100 Continue"))
        raw.send(body)
        let answer = raw.readUntilClosed()
        #expect(answer.hasPrefix("HTTP/1.1 200"))
        #expect(answer.contains(#""count":2"#))
    }

    @Test("malformed requests and oversize headers get 400/431 and a close; the server keeps serving")
    func hostileClients() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let server = try startServer(index: try sampleIndex(scratch))
        defer { server.stopAndWait() }

        let garbage = try RawConnection(port: server.port)
        garbage.send("THIS IS NOT HTTP\r\n\r\n")
        #expect(garbage.readUntilClosed().hasPrefix("HTTP/1.1 400"))
        garbage.close()

        let bigHeaders = try RawConnection(port: server.port)
        bigHeaders.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + String(repeating: "a", count: 40_000) + "\r\n\r\n")
        #expect(bigHeaders.readUntilClosed().hasPrefix("HTTP/1.1 431"))
        bigHeaders.close()

        let client = try TestHTTPClient(port: server.port)
        defer { client.close() }
        #expect(try client.get("/v1/lookup/18005555555").status == 200)
        #expect(server.metrics.requestCount(route: .other, status: 400) == 1)
        #expect(server.metrics.requestCount(route: .other, status: 431) == 1)
    }

    @Test("a client that trickles its request, or goes quiet, is disconnected")
    func slowClients() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let server = try startServer(index: try sampleIndex(scratch)) {
            $0.limits.requestTimeoutNanoseconds = 200_000_000
            $0.limits.idleTimeoutNanoseconds = 400_000_000
        }
        defer { server.stopAndWait() }

        let slow = try RawConnection(port: server.port)
        slow.send("GET /v1/lookup/1800")  // and never the rest
        #expect(slow.readUntilClosed() == "")
        slow.close()

        let idle = try RawConnection(port: server.port)
        idle.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = idle.readUntilClosed()  // answered, then closed once idle
        #expect(answer.hasPrefix("HTTP/1.1 200"))
        idle.close()
        #expect(server.metrics.timeouts.count == 2)
    }

    @Test("a client that asks Expect: 100-continue and never sends its body is closed at the request timeout")
    func expectContinueThenSilence() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let server = try startServer(index: try sampleIndex(scratch)) {
            $0.limits.requestTimeoutNanoseconds = 300_000_000
            $0.limits.idleTimeoutNanoseconds = 60_000_000_000  // longer than the client's 20 s safety net
        }
        defer { server.stopAndWait() }
        let raw = try RawConnection(port: server.port)
        defer { raw.close() }
        let started = Date()
        raw.send("POST /v1/lookup HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 24\r\n\r\n")
        #expect(raw.readSome().hasPrefix("HTTP/1.1 100 Continue"))
        #expect(raw.readUntilClosed() == "")
        // Closed by the 0.3 s request timeout, far from the 60 s idle limit (or the 20 s recv limit).
        #expect(Date().timeIntervalSince(started) < 10, "closed after \(Date().timeIntervalSince(started)) s")
        #expect(server.metrics.timeouts.count == 1)
    }

    @Test("a port already in use is a clear error, not a crash")
    func portInUse() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try sampleIndex(scratch)
        let first = try startServer(index: index)
        defer { first.stopAndWait() }
        let port = first.port
        #expect {
            try startServer(index: index) { $0.port = port }
        } throws: { error in
            (error as? CallDirError)?.message.hasPrefix("cannot listen on 127.0.0.1:\(port): Address already in use") == true
        }
    }

    @Test("stop: a request in flight is answered, idle connections close, new ones are refused")
    func gracefulStop() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let server = try startServer(index: try sampleIndex(scratch))
        let port = server.port
        let idle = try TestHTTPClient(port: port)
        #expect(try idle.get("/healthz").status == 200)

        let inFlight = try RawConnection(port: port)
        defer { inFlight.close() }
        inFlight.send("POST /v1/lookup HTTP/1.1\r\nHost: x\r\nContent-Length: 24\r\n\r\n18005555555\n")
        var polls = 0  // until the head is in (`count` reads the exporter's page: poll, don't spin)
        while server.metrics.inFlight.count == 0 && polls < 20_000 { usleep(500); polls += 1 }
        #expect(server.metrics.inFlight.count == 1)

        server.stop(reason: "test")
        inFlight.send("18775555555\n")
        let answer = inFlight.readUntilClosed()
        #expect(answer.hasPrefix("HTTP/1.1 200"))
        #expect(answer.contains(#""action":"identify""#))
        server.waitUntilStopped()
        #expect(throws: (any Error).self) { try idle.get("/healthz") }  // closed by the server
        #expect(throws: (any Error).self) { try RawConnection(port: port) }
        idle.close()
    }

    // National numbers ("800 555 5555" with --country 1) are the real normaliser's job; until it
    // lands this only checks that a configured country leaves international numbers alone.
    @Test("a server with a default country still answers international numbers")
    func country() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let server = try startServer(index: try sampleIndex(scratch)) { $0.country = 1 }
        defer { server.stopAndWait() }
        let client = try TestHTTPClient(port: server.port)
        defer { client.close() }
        #expect(try client.get("/v1/lookup/+18005555555").json["action"] as? String == "block")
    }
}
