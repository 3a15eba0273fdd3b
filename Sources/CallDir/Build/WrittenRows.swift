import CallDirReader

/// A row's number field as written, for the messages of the few rows that become order or
/// repeat problems. The plain-number fast path keeps only the normalised integer (under
/// `--country 1`, `2015550100` arrives as 12015550100) and the sort keeps no field text, so
/// the report, a cold path, reads the row again from its source. Nothing is added per row.
///
/// Only a regular file can be read again: for stdin, a FIFO or a SQLite query (which need
/// not give the same rows twice) the answer is nil and the message shows the number. Each
/// recovery reads its source up to the row, at most `limit` times per compile (messages are
/// capped by --max-errors anyway), so a compile that reports many problems stays linear.
final class WrittenRows {
    static let limit = 100
    private let sources: [SourceSpec]
    /// Rereads still allowed (`limit` at first).
    private(set) var left = WrittenRows.limit

    init(sources: [SourceSpec]) { self.sources = sources }

    private struct Found: Error { let text: String? }

    /// The number field of row `origin` (source index and line) as a message shows it, or nil.
    func text(at origin: Origin, kind: EntryKind) -> String? {
        guard left > 0, origin.source < sources.count, Self.canReadAgain(sources[origin.source]) else { return nil }
        left -= 1
        do {
            let source = try sources[origin.source].open(for: kind)
            try source.forEachRow { row in
                if row.line == origin.line { throw Found(text: DiagnosticLog.shown(row.number)) }
                if row.line > origin.line { throw Found(text: nil) }
            }
        } catch let found as Found {
            return found.text
        } catch {}
        return nil
    }

    private static func canReadAgain(_ spec: SourceSpec) -> Bool {
        let path: String
        switch spec {
        case .file(let file, _, _), .list(let file): path = file
        case .sqlite: return false
        }
        guard path != "-", case .success(.regular?) = Syscalls.kind(atPath: path) else { return false }
        return true
    }
}
