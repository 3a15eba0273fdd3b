/// The exit statuses of calldir's executables: one vocabulary for the CLI's answers (0, 1, 2,
/// 64 and 130, like grep's) and the feed commands' refusals (65-75, after sysexits.h). The
/// table "Exit status" in docs/CLI.md is this enum, row for row (`ExitStatusTableTests`); each
/// executable maps errors to it in one place: `Terminal.failStatus` (calldir, calldir-cli) and
/// `FeedError.exitStatus(for:)` (the feed commands in calldir-serve).
package enum ExitStatus: Int32, CaseIterable, Sendable {
    /// Done; for `lookup`, every answer is blocked or identified.
    case success = 0
    /// A negative answer: not listed, a list refused, an index damaged, a device that would fail.
    case negativeAnswer = 1
    /// Any other error: unreadable input, a missing index, a failed write.
    case error = 2
    /// Bad usage: an unknown option, a missing argument, an unusable key (EX_USAGE).
    case usage = 64
    /// The feed's manifest or signature is malformed, altered or by an untrusted key (EX_DATAERR).
    case untrustedManifest = 65
    /// The manifest goes back (rollback), has expired or is another feed's.
    case staleManifest = 66
    /// A file's size, SHA-256 or base does not match the manifest, or it is missing.
    case fileMismatch = 67
    /// The feed's server failed, timed out or stalled (EX_UNAVAILABLE).
    case serverFailed = 69
    /// A file could not be written (EX_IOERR).
    case writeFailed = 74
    /// Another `publish` holds the feed folder (EX_TEMPFAIL).
    case busy = 75
    /// Interrupted (SIGINT): temporaries removed, nothing published (128 + SIGINT).
    case interrupted = 130
}
