@testable import CallDirServer
import CallDirReader
import FuzzSupport
import Logging
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#endif

// The daemon's router over a real index: byte 0 picks the method, byte 1 the Accept header,
// then the request target up to a newline, then the body.
let indexPath = getenv("CALLDIR_FUZZ_INDEX").map { String(cString: $0) } ?? "../Tests/CallDirReaderTests/Fixtures/tiny.calldir"
let metrics = Metrics()
let holder = IndexHolder(path: indexPath, metrics: metrics, logger: Logger(label: "fuzz"))
guard case .loaded = holder.reload(reason: "fuzz") else { fatalError("cannot load \(indexPath); set CALLDIR_FUZZ_INDEX") }
let router = Router(holder: holder, metrics: metrics, limits: ServerLimits(), normalizer: try! NumberNormalizer(country: 1))
let methods: [HTTPMethod] = [.GET, .POST, .HEAD, .PUT, .DELETE, .OPTIONS]
let accepts = ["", "application/json", "text/plain", "*/*", "text/*;q=0.5, application/json"]

runFuzzer { data, size in
    let bytes = fuzzBytes(data, size)
    guard bytes.count >= 2 else { return 0 }
    let rest = bytes.dropFirst(2)
    let newline = rest.firstIndex(of: 0x0A) ?? rest.endIndex
    let uri = String(decoding: rest[rest.startIndex..<newline], as: UTF8.self)
    let body = newline < rest.endIndex ? ByteBuffer(bytes: rest[(newline + 1)...]) : nil
    var headers = HTTPHeaders()
    let accept = accepts[Int(bytes[1]) % accepts.count]
    if !accept.isEmpty { headers.add(name: "Accept", value: accept) }
    let response = router.respond(method: methods[Int(bytes[0]) % methods.count], uri: uri, body: body, headers: headers)
    precondition(response.status.code >= 200 && response.status.code < 600, "status \(response.status.code)")
    return 0
}
