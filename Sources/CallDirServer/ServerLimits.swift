import CallDirLookup
import CallDirReader
import NIOCore

/// What one client may hold: every bound a slow, buggy or hostile client runs into. The defaults
/// are the documented API limits (docs/SERVE.md); tests shrink the timeouts.
package struct ServerLimits: Sendable, Equatable {
    /// Largest request body accepted (bytes). A bigger Content-Length, or a streamed body that
    /// grows past it, is answered 413 at once and the connection is closed.
    package var maxBodyBytes: Int = 1 << 20
    /// Most numbers in one `POST /v1/lookup` batch; more is a 413 with a JSON error.
    package var maxBatchNumbers: Int = 10_000
    /// Longest request line plus headers (bytes); enforced by NIOHTTP1's decoder (431).
    package var maxHeaderBytes: Int = 16 << 10
    /// Most header fields in one request.
    package var maxHeaderFields: Int = 100
    /// A keep-alive connection silent (no reads, no completed writes) for this long is closed.
    /// A client that stops reading its responses is closed by the same rule.
    package var idleTimeoutNanoseconds: Int64 = 30_000_000_000
    /// A request must arrive completely (line, headers, body) within this time of its first
    /// byte, or the connection is closed: a trickling client cannot hold a connection forever.
    package var requestTimeoutNanoseconds: Int64 = 10_000_000_000
    /// Longest accepted number text in a URL or batch item, before normalisation.
    package var maxNumberLength: Int = 64

    package init() {}
}

/// How the daemon is started: what to serve and where.
public struct ServerConfiguration: Sendable {
    /// The index file: opened, verified, then watched for replacement.
    public var indexPath: String
    /// The address to listen on (loopback unless told).
    public var host: String = "127.0.0.1"
    /// 0 picks a free port (tests read it back from `LookupServer.port`).
    public var port: Int = 8080
    /// Calling code for national numbers in requests (like `calldir lookup --country`).
    public var country: Int?
    /// The region `--country` named, read with its own rules (nil: the code's main region's).
    public var region: String?
    /// Check each number against its country's rules (false: `--lenient`, or its former name `--no-nanp-check`).
    public var checksNANP = true
    /// What withheld, empty and invalid caller IDs get (`--anonymous`, `--invalid`).
    package var policy = CallerIDPolicy()
    package var limits = ServerLimits()
    /// Event-loop threads; defaults to the number of cores.
    public var threads: Int = System.coreCount
    /// How often the index file is stat()ed for replacement (nanoseconds); 0 turns polling off
    /// (SIGHUP and `IndexHolder.reload` still work).
    public var pollIntervalNanoseconds: Int64 = 500_000_000
    /// Log one line per request (method, path, status, microseconds). Off by default.
    public var logRequests = false
    /// What answers requests instead of the router (benchmarks only: the baseline that answers
    /// a constant through the same pipeline and handler). Nil: the router.
    public var responder: (any Responder)?
    /// Fail `LookupServer.start()` when the index cannot be loaded at start (`--require-index`),
    /// instead of staying up unready until a good file appears.
    public var requireIndex = false
    /// Install SIGHUP/SIGTERM/SIGINT handlers (the executable does; tests drive reloads directly).
    public var handleSignals = false

    /// The defaults of `calldir serve`, serving `indexPath`.
    public init(indexPath: String) { self.indexPath = indexPath }
}
