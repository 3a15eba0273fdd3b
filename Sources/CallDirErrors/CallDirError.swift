/// The one error type of the library: a code scripts can branch on, a message that says what
/// went wrong and what to do, and the context that locates it.
public struct CallDirError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure; the raw value is the word messages and JSON use.
    public enum Code: String, Sendable {
        /// A file could not be opened, read, written, synced or renamed.
        case io
        /// An input list is malformed in a way that is not one bad row (bad gzip, bad SQL...).
        case badInput = "bad-input"
        /// Rows were rejected by validation; the compile did not publish an index.
        case invalidList = "invalid-list"
        /// An index file failed a structural or checksum check.
        case corruptIndex = "corrupt-index"
        /// The index was written by an incompatible major version of the format.
        case unsupportedVersion = "unsupported-version"
        /// A limit set by the user (--max-numbers, batch size, memory) was exceeded.
        case limitExceeded = "limit-exceeded"
        /// Options that do not fit together.
        case usage
        /// A delta does not connect these files (another OLD, or it does not rebuild NEW).
        case deltaMismatch = "delta-mismatch"
    }

    /// What kind of failure.
    public var code: Code
    /// What went wrong and, where it can, what to do.
    public var message: String
    /// The file concerned.
    public var path: String?
    /// The line in that file (input lists).
    public var line: Int?
    /// Byte offset in a file, for damage reports.
    public var offset: Int?

    /// An error of `code`, located by path, line or byte offset where known.
    public init(_ code: Code, _ message: String, path: String? = nil, line: Int? = nil, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.line = line
        self.offset = offset
    }

    public var description: String {
        var prefix = ""
        if let path { prefix = path + (line.map { ":\($0)" } ?? "") + ": " }
        if let offset { return prefix + message + " (at byte \(offset))" }
        return prefix + message
    }
}
