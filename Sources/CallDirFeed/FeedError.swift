import CallDirReader

/// Why a feed was refused: the check that failed (a stable word scripts and tests match on),
/// a message that says what was expected and what was found, and the file or URL concerned.
public struct FeedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The checks a feed can fail, as errors name them.
    public enum Check: String, Sendable, CaseIterable {
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

    /// The check that failed.
    public var check: Check
    /// What was expected and what was found.
    public var message: String
    /// The file or URL concerned.
    public var path: String?

    /// An error of `check`.
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

    /// The process exit status for this failure (stable; docs/CLI.md, "Exit status").
    public var exitCode: Int32 { exitStatus.rawValue }

    /// The exit status of this check, from the one table (docs/CLI.md, "Exit status").
    package var exitStatus: ExitStatus {
        switch check {
        case .usage: return .usage
        case .manifest, .signature, .untrustedKey: return .untrustedManifest
        case .rollback, .expired, .feed: return .staleManifest
        case .size, .digest, .base, .missing: return .fileMismatch
        case .timeout, .transport: return .serverFailed
        case .install: return .writeFailed
        case .busy: return .busy
        }
    }

    /// The feed commands' one error-to-status mapping (calldir-serve's keygen, publish, update,
    /// verify --feed): a feed check's own status; of the library's errors, bad usage is 64 and
    /// a failed write 74 as for the feed's files; anything else 2.
    package static func exitStatus(for error: any Error) -> ExitStatus {
        if let error = error as? FeedError { return error.exitStatus }
        if let error = error as? CallDirError {
            return error.code == .usage ? .usage : error.code == .io ? .writeFailed : .error
        }
        return .error
    }
}
