/// Why a feed was refused: the check that failed (a stable word scripts and tests match on),
/// a message that says what was expected and what was found, and the file or URL concerned.
public struct FeedError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Check: String, Sendable {
        /// The manifest is not valid JSON or lacks a field (or has an unknown format version).
        case manifest
        /// The detached signature does not verify over the manifest's exact bytes.
        case signature
        /// The manifest is signed by a key that is not among the trusted ones.
        case untrustedKey = "untrusted-key"
        /// The manifest's serial is lower than the installed one (or equal with other content).
        case rollback
        /// The manifest's expiry time has passed: the feed is frozen.
        case expired
        /// The manifest names another feed than the one pinned (mix-and-match), or none.
        case feed
        /// Another `publish` holds the feed folder's lock.
        case busy
        /// A file is longer than the manifest announces (or the server never ends it).
        case size
        /// A file's SHA-256 (or CRC-32, device entries) differs from the manifest's.
        case digest
        /// A delta is for another base than the installed index.
        case base
        /// A file the manifest names cannot be fetched (HTTP 404, missing in the folder).
        case missing
        /// The server did not answer in time.
        case timeout
        /// Any other transport failure (connection refused, HTTP 5xx, reset).
        case transport
        /// Patching, publishing or reading the installed index failed.
        case install
        /// The command line or the configuration (a key, a duration) is wrong.
        case usage
    }

    public var check: Check
    public var message: String
    public var path: String?

    public init(_ check: Check, _ message: String, path: String? = nil) {
        self.check = check
        self.message = message
        self.path = path
    }

    /// One line, printable: text from the network (a signature line, a server's reason phrase,
    /// a URL) is in the message, so control characters are escaped before a terminal or a log.
    public var description: String {
        FeedText.printable((path.map { $0 + ": " } ?? "") + "feed check '\(check.rawValue)' failed: " + message)
    }

    /// The process exit status for this failure (stable; documented in FEED-PROTOCOL.md).
    public var exitCode: Int32 {
        switch check {
        case .usage: return 64
        case .manifest, .signature, .untrustedKey: return 65
        case .rollback, .expired, .feed: return 66
        case .size, .digest, .base, .missing: return 67
        case .timeout, .transport: return 69
        case .install: return 74
        case .busy: return 75
        }
    }
}
