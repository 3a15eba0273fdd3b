import Foundation
import Synchronization
import Testing
@testable import CallDir
import CallDirReader
import TestSupport

/// Rows as the compile loop sees them through `RowPrefetcher`.
private enum Seen: Equatable {
    case number(line: Int, Int64)
    case text(line: Int, String, String?)
}

private func prefetched(_ source: any EntrySource, plainNumbers: Bool = true,
                        stopAfter limit: Int = .max) throws -> [Seen] {
    var seen: [Seen] = []
    try RowPrefetcher.forEachBatch(of: source, normalizer: try NumberNormalizer(), plainNumbers: plainNumbers) { batch in
        var textRows = 0
        for i in 0..<batch.count {
            if seen.count == limit { throw StopHere() }
            if batch.numbers[i] != 0 {
                seen.append(.number(line: batch.lines[i], batch.numbers[i]))
            } else {
                batch.withTextRow(textRows, line: batch.lines[i]) { row in
                    seen.append(.text(line: row.line, String(decoding: row.number, as: UTF8.self),
                                      row.label.map { String(decoding: $0, as: UTF8.self) }))
                }
                textRows += 1
            }
        }
    }
    return seen
}

private struct StopHere: Error {}
private struct SourceFailed: Error, Equatable { let afterRows: Int }

/// `count` rows: every seventh is not a plain number, every fifth has a label; optionally
/// fails after `failAfter` rows. Counts the rows it produced.
private final class SyntheticSource: EntrySource {
    let name = "synthetic"
    let count: Int
    let failAfter: Int?
    /// Read by the test while a detached reading thread may still be finishing a batch.
    let produced = Atomic<Int>(0)

    init(count: Int, failAfter: Int? = nil) {
        self.count = count
        self.failAfter = failAfter
    }

    static func number(_ i: Int) -> Int64 { 12_002_000_000 + Int64(i) }

    static func expected(_ i: Int, plainNumbers: Bool = true) -> Seen {
        let text = i % 7 == 0 ? "+1 (200) \(i)" : String(number(i))
        let label = i % 5 == 0 ? "label \(i)" : nil
        return plainNumbers && i % 7 != 0 ? .number(line: i + 1, number(i)) : .text(line: i + 1, text, label)
    }

    func forEachRow(_ body: (SourceRow) throws -> Void) throws {
        for i in 0..<count {
            if let failAfter, i == failAfter { throw SourceFailed(afterRows: i) }
            let text = Array((i % 7 == 0 ? "+1 (200) \(i)" : String(Self.number(i))).utf8)
            let label = Array("label \(i)".utf8)
            produced.add(1, ordering: .relaxed)
            try text.withUnsafeBytes { number in
                try label.withUnsafeBytes { label in
                    try body(SourceRow(line: i + 1, number: number, label: i % 5 == 0 ? label : nil))
                }
            }
        }
    }
}

@Suite("Row prefetcher (compile reads on a second thread)")
struct RowPrefetcherTests {
    @Test("rows arrive in source order across batch boundaries, numbers and text mixed")
    func order() throws {
        let count = RowBatch.capacity * 2 + 123
        let seen = try prefetched(SyntheticSource(count: count))
        #expect(seen == (0..<count).map { SyntheticSource.expected($0) })
        let asText = try prefetched(SyntheticSource(count: 1000), plainNumbers: false)
        #expect(asText == (0..<1000).map { SyntheticSource.expected($0, plainNumbers: false) })
    }

    @Test("an empty source gives no rows")
    func empty() throws {
        #expect(try prefetched(SyntheticSource(count: 0)).isEmpty)
    }

    @Test("a source error arrives after every row read before it")
    func sourceError() throws {
        let failAfter = RowBatch.capacity + 10
        var seen: [Seen] = []
        #expect(throws: SourceFailed(afterRows: failAfter)) {
            try RowPrefetcher.forEachBatch(of: SyntheticSource(count: failAfter * 2, failAfter: failAfter),
                                           normalizer: try NumberNormalizer(), plainNumbers: true) { batch in
                for i in 0..<batch.count { seen.append(.number(line: batch.lines[i], 0)) }
            }
        }
        #expect(seen.count == failAfter)
    }

    @Test("when the compile loop fails, the reading thread stops at its next batch")
    func consumerError() throws {
        let source = SyntheticSource(count: RowBatch.capacity * 50)
        #expect(throws: StopHere.self) { try prefetched(source, stopAfter: 100) }
        // The reader is at most a few batches ahead of the failure, never at the end.
        #expect(source.produced.load(ordering: .relaxed) < RowBatch.capacity * (RowPrefetcher.depth * 2 + 3))
    }

    @Test("a text list reads the same through the prefetcher as row by row")
    func textListSameRows() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        var lines = ["# comment", "", "12015550100", "  12015550101  ", "+1 201 555 0102", "12015550103\tlabel",
                     "12015550104,csv label", "012345678", "12015550105\r"]
        lines += (0..<RowBatch.capacity).map { String(12_015_560_000 + $0) }
        let path = folder.write("list.txt", lines.joined(separator: "\n"))
        let direct = try collectRows(TextListSource(path: path))
        let seen = try prefetched(TextListSource(path: path))
        #expect(seen.count == direct.count)
        for (row, got) in zip(direct, seen) {
            if case .number(let line, let value) = got {
                #expect(line == row.line && String(value) == row.number)
            } else {
                #expect(got == .text(line: row.line, row.number, row.label))
            }
        }
        #expect(seen.contains(.text(line: 4, "  12015550101  ", nil)))
        #expect(seen.contains(.number(line: 6, 12_015_550_103)))
    }
}
