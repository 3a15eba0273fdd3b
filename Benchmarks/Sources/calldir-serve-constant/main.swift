// The baseline of Benchmarks/scripts/serve-load.sh: the daemon's whole HTTP stack (the same
// LookupServer, pipeline and handler) answering every request with one constant JSON body,
// without routing or lookups. Kept here so the production router carries no benchmark mode.
//
//   calldir-serve-constant --index FILE --port N [--threads N]
#if canImport(Glibc)
import Glibc
#endif
import CallDirServer
import Logging
import NIOCore
import NIOHTTP1

struct ConstantResponder: Responder {
    let body = ByteBufferAllocator().buffer(string: #"{"action":"allow"}"#)

    func respond(method: HTTPMethod, uri: String, body _: ByteBuffer?, headers _: HTTPHeaders) -> Response {
        Response(status: .ok, body: body, route: .lookup)
    }
}

var arguments = CommandLine.arguments.dropFirst()
var values: [String: String] = [:]
while let name = arguments.popFirst(), let value = arguments.popFirst() { values[name] = value }
guard let index = values["--index"], let port = values["--port"].flatMap(Int.init) else {
    print("usage: calldir-serve-constant --index FILE --port N [--threads N]")
    exit(64)
}
var config = ServerConfiguration(indexPath: index)
config.port = port
if let threads = values["--threads"].flatMap(Int.init) { config.threads = threads }
config.pollIntervalNanoseconds = 0
config.handleSignals = true
config.responder = ConstantResponder()
let server = try LookupServer(configuration: config, logger: Logger(label: "calldir.serve-constant"))
try server.start()
server.waitUntilStopped()
