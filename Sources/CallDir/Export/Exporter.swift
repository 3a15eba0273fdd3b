import CallDirReader
/// Writes an index in another list format, streaming: memory is bounded by the ranges and
/// labels (small sections read as arrays), never by the numbers, except vCard's grouping
/// by label, which holds at most `vcardBatch` numbers at a time.
///
/// The text, CSV, Saracroche (`--list`) and Begone exports compile (without `--sort`) back
/// into a byte-identical index: numbers ascending, ranges as patterns or FIRST-LAST pieces
/// (`RangeText`): a compile's label decisions depend only on the ascending entries and the
/// ranges, not on the order of the rows.
package struct Exporter {
    package let index: CallDirIndex
    package let options: ExportOptions
    /// Most numbers vCard grouping holds in memory in one pass over the index.
    var vcardBatch = 1 << 20

    package init(index: CallDirIndex, options: ExportOptions) {
        self.index = index
        self.options = options
    }

    /// Exports to `path` (published atomically), or to standard output for nil or `-`.
    /// Nothing is published on failure.
    package func run(to path: String?) throws -> ExportSummary {
        let kind = try resolvedKind()
        if options.format.expandsRanges || options.ranges == .expand { try checkBudget(kind) }
        let out = try ExportOutput(path: path)
        do {
            var summary = try write(kind, to: out)
            try out.finish()
            summary.bytes = out.bytes
            return summary
        } catch {
            out.discard()
            throw error
        }
    }

    /// The kind asked for, or the one a single-kind format can take from this index.
    func resolvedKind() throws -> ExportKind {
        let format = options.format
        if let kind = options.kind {
            guard kind != .all || format.holdsBothKinds else {
                throw CallDirError(.usage, "--format \(format.rawValue) holds one kind: use --kind block or --kind identify")
            }
            return kind
        }
        if format.holdsBothKinds { return .all }
        let hasBlocked = index.blockedCount + index.blockedRangeCount > 0
        let hasIdentified = index.identifiedCount + index.identifiedRangeCount > 0
        if hasBlocked && hasIdentified {
            throw CallDirError(.usage, "the index has blocking and identification entries and --format \(format.rawValue) "
                               + "holds one kind: choose one with --kind block or --kind identify", path: index.path)
        }
        return hasIdentified ? .identify : .block
    }

    /// Refuses an expanding export above --max-numbers before anything is written. Counts come
    /// from the sections, not from metadata: the bound adds stored counts and range sizes; over
    /// it, the ranges of one kind alone may exceed the budget (refused at once, without a walk
    /// through a forged range of 10^14 numbers); else the walk that counts lists what the
    /// export will write, at most twice the budget plus the numbers stored one by one.
    private func checkBudget(_ kind: ExportKind) throws {
        let walk = EntryWalk(index: index)
        guard walk.expandedBound(kind) > options.maxNumbers else { return }
        let ranges = [ExportKind.block, .identify].filter { kind == .all || kind == $0 }.map { walk.rangeNumbers($0) }.max() ?? 0
        if ranges > options.maxNumbers {
            throw CallDirError(.limitExceeded, "the export would list at least \(formatCount(ranges)) numbers (the ranges of one kind, "
                               + "expanded; \(options.format.rawValue) has no wildcards), above --max-numbers \(formatCount(options.maxNumbers)); "
                               + "raise --max-numbers or choose a format with patterns", path: index.path)
        }
        let count = try walk.expandedCount(kind)
        guard count > options.maxNumbers else { return }
        throw CallDirError(.limitExceeded, "the export would list \(formatCount(count)) numbers (ranges expanded; "
                           + "\(options.format.rawValue) has no wildcards), above --max-numbers \(formatCount(options.maxNumbers)); "
                           + "raise --max-numbers or choose a format with patterns", path: index.path)
    }

    private func write(_ kind: ExportKind, to out: ExportOutput) throws -> ExportSummary {
        switch options.format {
        case .text, .csv: return try TextExport(exporter: self, out: out).write(kind)
        case .vcard: return try VCardExport(exporter: self, out: out).write(kind)
        case .saracroche: return try SaracrocheExport(exporter: self, out: out).write(kind)
        case .begone: return try BegoneExport(exporter: self, out: out).write(kind)
        case .liveCallerID, .liveCallerIDBlock, .liveCallerIDIdentity:
            return try LiveCallerIDExport(exporter: self, out: out).write(kind)
        }
    }

    /// Identification rows ascending: exact numbers, and range pieces before the first exact
    /// number above the range's start.
    func identifyRows(spans: Bool, _ row: (String, String) throws -> Void) throws {
        let text = RangeText(spans: spans)
        try EntryWalk(index: index).identified(number: { try row(String($0), $1) },
                                               range: { range, label in try text.pieces(range) { try row($0, label) } })
    }

    /// Blocking rows ascending: numbers and range pieces (or every number with `expand`).
    func blockRows(spans: Bool, expand: Bool, _ row: (String) throws -> Void) throws {
        let walk = EntryWalk(index: index)
        if expand { return try walk.blockedExpanded { try row(String($0)) } }
        let text = RangeText(spans: spans)
        try walk.blocked(number: { try row(String($0)) }, range: { try text.pieces($0, row) })
    }
}
