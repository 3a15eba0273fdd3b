#if canImport(Glibc)
import Glibc
#endif
import CallDirNumbers
import CallDirReader
import CallDirWriter

/// Compiles lists into an index: read -> normalise -> (sort) -> validate -> encode -> publish.
/// Streams: memory is bounded by the sort budget plus the block directory, not the list.
public final class Compiler {
    let options: CompileOptions
    private let normalizer: NumberNormalizer
    /// `--valid-only`, `--types`: nil keeps every possible number.
    /// This and `shape`, `national` are touched by every text row (`checkedRow`), on the compile
    /// thread alone: unchecked, or each access is a run-time exclusivity check (~6% of a
    /// labelled compile's instructions).
    @exclusivity(unchecked) private var typeFilter: NumberTypeFilter?
    private let sourceNames: [String]
    private let log: DiagnosticLog

    /// The problems reported so far, by kind with their fixes (a failed compile's last line).
    package var problemTally: ProblemTally { log.tally }
    private let onProgress: ((Int) -> Void)?
    let labels: LabelCollector
    /// Labels of range rows, numbered for range resolution; they become shared labels when
    /// the tables are written.
    let rangeLabels = LabelTable()
    var summary: CompileSummary
    var rejects: RejectLog!

    /// A compile with `options`: `onDiagnostic` receives each problem found in the input as it is
    /// found, `onProgress` the rows read so far (every 65,536 rows). Throws when `country` is not a
    /// calling code the normaliser knows.
    public init(options: CompileOptions, onDiagnostic: @escaping (Diagnostic) -> Void,
                onProgress: ((Int) -> Void)? = nil) throws {
        self.options = options
        normalizer = try NumberNormalizer(country: options.country, region: options.region, lenient: options.lenient)
        typeFilter = NumberTypeFilter(validOnly: options.validOnly, types: options.types)
        sourceNames = (options.blockSources + options.identifySources + options.allowSources).map(\.displayName)
        log = DiagnosticLog(limit: options.maxErrors, sourceNames: sourceNames, onDiagnostic: onDiagnostic)
        self.onProgress = onProgress
        labels = LabelCollector(temporaryFolder: options.temporaryFolder)
        summary = CompileSummary(output: options.output)
    }

    /// Compiles and publishes. Every output (the rejects list too) is complete and durable
    /// before the index is renamed into place, the index last; on any failure no index is
    /// published, an existing file at the output path is left untouched and temporaries are
    /// removed. The error is `.invalidList` when rows broke the rules (each already reported
    /// through `onDiagnostic`); then, and for `.limitExceeded`, the rejects list is still
    /// published, as it explains why. After any other error nothing is.
    /// Temporaries left by compiles that were killed (`StaleTemporaries`) are removed first.
    public func run() throws -> CompileSummary {
        let started = monotonicSeconds()
        if !options.check {
            StaleTemporaries.sweep(folders: [AtomicFile.folder(of: options.output), options.temporaryFolder]
                                   + (options.rejectsPath.map { [AtomicFile.folder(of: $0)] } ?? []))
        }
        rejects = try RejectLog(path: options.rejectsPath, sourceNames: sourceNames)
        let writer: IndexWriter
        do {
            writer = try options.check ? IndexWriter(scratchIn: options.temporaryFolder, for: options.output)
                                       : IndexWriter(destination: options.output)
        } catch { rejects.discard(); throw error }
        do {
            try compile(into: writer)
            try rejects.prepare()
            try rejects.commit()
            if options.check { writer.discard() } else { try writer.commit() }
        } catch is DiagnosticLog.LimitReached {
            writer.discard()
            try? rejects.publish()
            throw CallDirError(.invalidList, "\(log.tally.advice); stopped there (--max-errors \(options.maxErrors)), no index written",
                               path: inputSubject)
        } catch let error as CallDirError where error.code == .invalidList || error.code == .limitExceeded {
            writer.discard()
            try? rejects.publish()
            throw error
        } catch {
            writer.discard()
            rejects.discard()
            throw error
        }
        summary.rejected = Dictionary(uniqueKeysWithValues: rejects.counts.map { ($0.key.rawValue, $0.value) })
        summary.seconds = monotonicSeconds() - started
        return summary
    }

    /// What a failed compile's message is about: the input, not the output. The one list the
    /// problems were found in, else how many lists.
    private var inputSubject: String {
        let sources = log.sourcesWithProblems.sorted()
        if sources.count == 1 { return sourceNames[sources[0]] }
        return sources.isEmpty ? "the input" : "\(sources.count) input lists"
    }

    private func compile(into writer: IndexWriter) throws {
        let allow = try loadAllowList()
        var blocked = try NumberSetEncoder(writer: writer, kind: .blockedNumbers, withLabels: false)
        let blockRanges = try readKind(.block, sources: options.blockSources, firstSource: 0, encoder: &blocked, allow: allow)
        try blocked.finish()
        var identified = try NumberSetEncoder(writer: writer, kind: .identifiedNumbers, withLabels: true)
        let identifyRanges = try readKind(.identify, sources: options.identifySources, firstSource: options.blockSources.count,
                                          encoder: &identified, allow: allow, encodedEarlier: blocked.count)
        try identified.finish()
        try checkNational()
        if log.count > 0 {
            throw CallDirError(.invalidList, "\(log.tally.advice); no index written", path: inputSubject)
        }
        try blocked.writeDirectory(kind: .blockedDirectory, pages: .blockedDirectoryPages)
        try identified.writeDirectory(kind: .identifiedDirectory, pages: .identifiedDirectoryPages)
        let (blockSegments, cut) = RangeMath.subtract(allow, from: RangeMath.merge(blockRanges.map(\.range)))
        let identifySegments = RangeMath.flatten(identifyRanges)
        summary.allowedRangeNumbersRemoved = cut
        let finisher = IndexFinisher(writer: writer, labels: labels)
        var metadata = try finisher.metadata(blocked: blocked, identified: identified, blockSegments: blockSegments,
                                             identifySegments: identifySegments.map(\.0))
        summary.deviceEntries = metadata.deviceEntries
        try checkDeviceBudget()
        try checkNotEmpty()
        metadata.buildTime = options.buildTime
        let rangeLabelIDs = identifySegments.map { segment in rangeLabels.withLabel(Int(segment.1)) { labels.sharedID(forRange: $0) } }
        metadata = try finisher.writeTables(metadata, blockSegments: blockSegments,
                                            identifySegments: Array(zip(identifySegments.map(\.0), rangeLabelIDs)))
        summary.take(metadata)
        if let typeFilter { summary.numbersByType = typeFilter.counts.map { ($0.key.rawValue, $0.value) }.sorted { $0.0 < $1.0 } }
        let (size, crc) = try writer.finish()
        summary.fileBytes = size
        summary.checksum = crc
    }

    /// Where order and repeat messages find a row's text that the fast path or the sort did not
    /// keep: only then can the row differ from its number as digits.
    /// Rows read again from their source for a message so far (`WrittenRows`): a cold path,
    /// which repeats under --dedupe must never take.
    var rowsReadAgain: Int { writtenRows.map { WrittenRows.limit - $0.left } ?? 0 }
    private lazy var writtenRows: WrittenRows? = options.country != nil || options.sort
        ? WrittenRows(sources: options.blockSources + options.identifySources + options.allowSources) : nil

    /// The national-shape sample of the kind being read.
    @exclusivity(unchecked) private var shape = NationalShapeCheck()
    /// Rows sampled to tell a national list read without --country (all kinds).
    @exclusivity(unchecked) private var national = NationalListCheck()

    @inline(never)
    private func sampleShape(_ numbers: UnsafeMutablePointer<Int64>, count: Int) {
        shape.note(numbers, count: count)
    }

    /// Without --country, a list of national numbers fails, naming the likely countries
    /// (`NationalListCheck`): rows left out as `missing-country-code` whatever the flags, or
    /// numbers read as other countries' unless `--international` says they are E.164.
    private func checkNational() throws {
        guard options.country == nil else { return }
        let missing = rejects.counts[.missingCountryCode] ?? 0
        guard let verdict = national.verdict(rowsRead: summary.rowsRead, missingCountryCode: missing) else {
            // North American numbers written without their 1 may also read as valid E.164 of
            // other countries (4692576503: +46 92576503), which the sample cannot tell apart:
            // the 10-digit shape check still fails such a list (CountryTableTests).
            if let looksNational = summary.warnings.first(where: { $0.hasPrefix(NationalShapeCheck.lead) }), !options.international {
                throw CallDirError(.invalidList, "\(looksNational) Or pass --international if the digits are E.164 on purpose; no index written",
                                   path: inputSubject)
            }
            return
        }
        let refusedRows = missing > 0 && missing * 2 >= summary.rowsRead  // not silenced by --international
        if !refusedRows, options.international { return }
        let escape = refusedRows ? "" : " Or pass --international if the digits are E.164 on purpose."
        throw CallDirError(.invalidList, verdict + "." + escape, path: inputSubject)
    }

    /// Keeps a kind's sample check in the summary (the warning once, for the larger sample).
    private func noteShape(_ shape: NationalShapeCheck) {
        guard let warning = shape.warning, summary.topCountryCodes.isEmpty else { return }
        summary.warnings.append(warning)
        summary.topCountryCodes = shape.topCodes
    }

    /// An empty or truncated list must not ship: an index without entries unblocks everyone.
    private func checkNotEmpty() throws {
        let subject = self.subject
        if summary.deviceEntries == 0, !options.allowEmpty, rejects.total > 0 {
            // Rows were left out: publishing nothing is not the fix (issue 44).
            let reasons = rejects.counts.sorted { ($0.value, $1.key.rawValue) > ($1.value, $0.key.rawValue) }
                .map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
            throw CallDirError(.invalidList,
                               "no entries: all \(summary.rowsRead) rows read were left out (\(reasons)); no index written",
                               path: subject)
        }
        if summary.deviceEntries == 0, !options.allowEmpty {
            throw CallDirError(.limitExceeded,
                               "no entries (\(summary.rowsRead) rows read): an empty index would unblock every caller; --allow-empty publishes it anyway; no index written",
                               path: subject)
        }
        if let minimum = options.minNumbers, summary.deviceEntries < minimum {
            throw CallDirError(.limitExceeded,
                               "a device would load \(counted(summary.deviceEntries, "entry", "entries")) (ranges expanded), below --min-numbers \(formatCount(minimum)); no index written",
                               path: subject)
        }
    }

    /// What a limit's message names: the list, not the index (which --check never writes).
    private var subject: String { sourceNames.count == 1 ? sourceNames[0] : "the input" }

    private func checkDeviceBudget() throws {
        guard let budget = options.maxNumbers, summary.deviceEntries > budget else { return }
        throw CallDirError(.limitExceeded,
                           "a device would have to load \(counted(summary.deviceEntries, "entry", "entries")) (ranges expanded), above --max-numbers \(formatCount(budget)); no index written",
                           path: subject)
    }

    /// Distinct numbers encoded so far are device entries already (a device loads each exact
    /// number once, ranges on top): past --max-numbers, the read stops at once, so an endless
    /// source (a FIFO, a recursive SQLite view) ends here. Checked once per batch of rows.
    private func checkBudgetWhileReading(encoded: Int) throws {
        guard let budget = options.maxNumbers, Int64(encoded) > budget else { return }
        throw CallDirError(.limitExceeded,
                           "more than \(formatCount(budget)) numbers read, above --max-numbers \(formatCount(budget)); stopped reading, no index written",
                           path: subject)
    }

    /// With --sort and --dedupe or --allow, rows held for sorting may still repeat or be
    /// allowed away: no count before the merge bounds device entries, and an endless source
    /// may repeat a few numbers forever. So the read has its own budget, documented with
    /// --max-numbers: at most `readBudgetFactor` times --max-numbers rows held for sorting.
    static let readBudgetFactor: Int64 = 10

    private func checkReadBudgetWhileSorting(held: Int) throws {
        guard let budget = options.maxNumbers else { return }
        let (readBudget, overflow) = budget.multipliedReportingOverflow(by: Self.readBudgetFactor)
        guard !overflow, Int64(held) > readBudget else { return }
        throw CallDirError(.limitExceeded,
                           "more than \(formatCount(readBudget)) rows read for sorting, \(Self.readBudgetFactor) times --max-numbers \(formatCount(budget)) "
                           + "(with --sort and --dedupe or --allow, repeats and allowed numbers drop out only after the sort); stopped reading, no index written",
                           path: subject)
    }

    /// Reads every source of one kind into `encoder`; returns the range rows.
    /// The per-row state lives in locals (not in `self`), so the hot loop needs no run-time
    /// exclusivity checks. Sources are read a batch ahead on a second thread (`RowPrefetcher`).
    private func readKind(_ kind: EntryKind, sources: [SourceSpec], firstSource: Int, encoder: inout NumberSetEncoder,
                          allow: AllowList, encodedEarlier: Int = 0) throws -> [(range: NumberRange, label: UInt32, origin: Origin)] {
        var sink = EntrySink(kind: kind, encoder: encoder, labels: labels, allow: allow, dedupe: options.dedupe,
                             log: log, rejects: rejects, writtenRows: writtenRows)
        let sorter = options.sort ? try ExternalSorter(memoryBudget: Self.sortBudget(options.memoryBudget, kind: kind),
                                                       temporaryFolder: options.temporaryFolder) : nil
        var ranges: [(range: NumberRange, label: UInt32, origin: Origin)] = []
        var rowsRead = summary.rowsRead
        defer { summary.rowsRead = rowsRead }
        // Sampled per batch, before its rows, into `self`: nothing is added to the per-row
        // loop, and the loop's closure captures nothing more (a captured struct cost 1% of a
        // compile in register spills).
        let checksShape = options.country == nil
        shape = NationalShapeCheck()
        defer { noteShape(shape) }
        for (i, spec) in sources.enumerated() {
            let source = try spec.open(for: kind)
            // With a type filter every row takes the full path, where the filter is applied.
            let textSamples = checksShape && national.wantsTaken ? NationalListCheck.perKind : 0
            try RowPrefetcher.forEachBatch(of: source, normalizer: normalizer, plainNumbers: kind != .identify && typeFilter == nil,
                                           textSamples: textSamples) { batch in
                if checksShape { sampleShape(batch.numbers, count: batch.count) }
                var textRows = 0
                for row in 0..<batch.count {
                    rowsRead += 1
                    if rowsRead & 0xFFFF == 0 { onProgress?(rowsRead) }
                    let line = batch.lines[row]
                    let origin = Origin(source: firstSource + i, line: line)
                    let number = batch.numbers[row]
                    if number != 0 {  // a plain number the reading thread already normalised
                        if let sorter { try sorter.append(number: number, origin: origin.raw, label: nil) } else {
                            try sink.accept(number, origin: origin, label: nil)
                        }
                    } else {
                        try batch.withTextRow(textRows, line: line) { row in
                            try take(row, origin: origin, kind: kind, sink: &sink, sorter: sorter, ranges: &ranges)
                        }
                        textRows += 1
                    }
                }
                sink.keepPreviousLabel()  // the batch's rows are reused once it is handed back
                if let sorter {
                    // Before sorting, rows may repeat: they bound device entries only when a repeat
                    // is an error (no --dedupe) and no allow list can drop them.
                    if !options.dedupe, allow.isEmpty { try checkBudgetWhileReading(encoded: encodedEarlier + sorter.recordCount) } else {
                        try checkReadBudgetWhileSorting(held: encodedEarlier + sorter.recordCount)
                    }
                } else {
                    try checkBudgetWhileReading(encoded: encodedEarlier + sink.count)
                }
            }
        }
        if let sorter {
            summary.sortRuns += sorter.runCount
            try sorter.drain { n, origin, label in try sink.accept(n, origin: Origin(raw: origin), label: label, keepsLabel: true) }
        }
        encoder = sink.encoder
        summary.duplicates += sink.duplicates
        summary.labelConflicts += sink.labelConflicts
        summary.allowedNumbersRemoved += sink.allowed
        return ranges
    }

    /// Memory a compile uses besides the sort's buffers, measured on the release build: the
    /// process (code, runtime, read-ahead batches, the encoder) and, for identification, the
    /// label tables (`LabelCollector`: hash table, training sample, spill buffer).
    static let processOverhead = 14 << 20
    static let labelOverhead = 8 << 20

    /// The sort buffers' share of `--memory` (a budget below the sorter's minimum is passed on
    /// as it is, for the sorter to refuse).
    static func sortBudget(_ memory: Int, kind: EntryKind) -> Int {
        guard memory >= ExternalSorter.minimumBudget else { return memory }
        return max(ExternalSorter.minimumBudget, memory - processOverhead - (kind == .identify ? labelOverhead : 0))
    }

    /// A row the reading thread could not take as a plain number: normalise it in full (or
    /// reject it), then sort, or validate and encode.
    private func take(_ row: SourceRow, origin: Origin, kind: EntryKind, sink: inout EntrySink, sorter: ExternalSorter?,
                      ranges: inout [(range: NumberRange, label: UInt32, origin: Origin)]) throws {
        guard let (entry, labelHash) = try checkedRow(row, kind: kind, origin: origin) else { return }
        let label = kind == .identify ? row.label : nil
        switch entry {
        case .number(let n):
            if let sorter { try sorter.append(number: n, origin: origin.raw, label: label) } else {
                try sink.accept(n, origin: origin, label: label, labelHash: labelHash, written: row.number)
            }
        case .range(let r):
            summary.rangeRows += 1
            ranges.append((r, label.map { rangeLabels.intern($0) } ?? 0, origin))
        }
    }

    /// The row's entry, or nil after reporting (strict) or counting (--skip-invalid) it.
    @inline(__always)
    private func normalizedRow(_ row: SourceRow, kind: EntryKind, origin: Origin) throws -> NormalizedEntry? {
        if kind != .identify, typeFilter == nil, let number = normalizer.validPlainNumber(row.number) { return .number(number) }
        return try checkedRow(row, kind: kind, origin: origin)?.entry
    }

    /// The row's entry and, for an identification row, its label's hash (one per row, for the
    /// checks here and the label's ref).
    @inline(never)
    private func checkedRow(_ row: SourceRow, kind: EntryKind, origin: Origin) throws -> (entry: NormalizedEntry, labelHash: UInt64?)? {
        if options.country == nil, national.wantsTaken { national.noteTaken(row.number) }
        switch normalizer.normalize(row.number) {
        case .failure(let reason):
            // `911`, `112` are refused as `emergency-number` (never blocked or labelled).
            try reject(origin, reason: reason, text: row.number)
            return nil
        case .success(let entry):
            if options.country == nil, case .number(let number) = entry { shape.noteOne(number) }
            if case .number(let number) = entry, let problem = typeFilter?.problem(number) {
                try reject(origin, reason: problem, text: row.number)
                return nil
            }
            guard kind == .identify else { return (entry, nil) }
            guard let label = row.label else {
                try reject(origin, reason: .missingLabel, text: row.number)
                return nil
            }
            let hash = labels.hashPrefetchingSlot(label)
            // Labels seen before passed these checks; most rows repeat a known label.
            if !labels.isShared(label, hash: hash), rangeLabels.knownID(label, hash: hash) == nil,
               let problem = LabelRule.problem(label) {
                let detail = problem == .labelTooLong
                    ? "labels are at most \(IndexFormat.maxLabelBytes) UTF-8 bytes; this one has \(label.count)"
                    : problem == .labelControlCharacter ? Self.controlDetail(label) : nil
                try reject(origin, reason: problem, text: row.number, detail: detail)
                return nil
            }
            return (entry, hash)
        }
    }

    /// "its label 'Acme Corp' has U+0009 (a tab) at character 5; ...": the label is what is
    /// wrong, not the number the message starts with. The control is shown as a space.
    private static func controlDetail(_ label: UnsafeRawBufferPointer) -> String? {
        guard let (scalar, character) = LabelRule.firstControl(label) else { return nil }
        var shown = String.UnicodeScalarView()
        for each in String(decoding: label, as: UTF8.self).unicodeScalars { shown.append(LabelRule.isControl(each) ? " " : each) }
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let name = scalar.value == 0x09 ? " (a tab)" : scalar.value == 0x202E ? " (right-to-left override)" : ""
        return "its label '\(String(shown))' has U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex)\(name) at character \(character); "
            + RejectReason.labelControlCharacter.explanation
    }

    /// `detail` replaces the reason's explanation where the row says more (a label's length).
    private func reject(_ origin: Origin, reason: RejectReason, text: UnsafeRawBufferPointer, detail: String? = nil) throws {
        try rejects.record(origin, reason: reason, text: text)
        if reason == .missingCountryCode, options.country == nil { national.noteRefused(text) }
        if !options.skipInvalid {
            if options.country == nil, RejectReason.normalizerReasons.contains(reason), Self.looksNorthAmerican(text) {
                log.noteNationalNumber()
            }
            let shown = DiagnosticLog.shown(text)
            try log.report(origin, rule: reason.rawValue, "'\(shown)' rejected: \(detail ?? normalizer.explain(text, reason)) (\(reason.rawValue))",
                           text: shown)
        }
    }

    /// 10 plain digits, area code and exchange starting with 2-9: a North American number
    /// written without its 1.
    static func looksNorthAmerican(_ text: UnsafeRawBufferPointer) -> Bool {
        text.count == 10 && text.allSatisfy { $0 &- 0x30 < 10 } && text[0] >= 0x32 && text[3] >= 0x32
    }

    private func loadAllowList() throws -> AllowList {
        var numbers: [Int64] = []
        var ranges: [NumberRange] = []
        let first = options.blockSources.count + options.identifySources.count
        for (i, spec) in options.allowSources.enumerated() {
            try spec.open(for: .allow).forEachRow { row in
                summary.rowsRead += 1
                switch try normalizedRow(row, kind: .allow, origin: Origin(source: first + i, line: row.line)) {
                case .number(let n): numbers.append(n); summary.allowRows += 1
                case .range(let r): ranges.append(r); summary.allowRows += 1
                case nil: break
                }
            }
        }
        return AllowList(numbers: numbers, ranges: ranges)
    }
}
