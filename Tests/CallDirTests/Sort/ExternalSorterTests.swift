import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader
import TestSupport

/// A record as the tests see it; `sequence` is the appending position (the final tie-break).
private struct TestRecord: Equatable, CustomStringConvertible {
    var number: Int64
    var origin: UInt64
    var label: [UInt8]?
    var sequence = 0

    static func == (a: TestRecord, b: TestRecord) -> Bool {
        a.number == b.number && a.origin == b.origin && a.label == b.label
    }

    var description: String { "(\(number), \(origin), \(label.map { "\($0.count) bytes" } ?? "nil"))" }
}


private func randomRecords(count: Int, seed: UInt64, numbers: ClosedRange<Int64>,
                           ascendingOrigins: Bool = false, maxLabel: Int = 40) -> [TestRecord] {
    var random = SeededGenerator(seed: seed)
    return (0..<count).map { index in
        let label: [UInt8]?
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1: label = nil
        case 2: label = []
        default: label = (0..<Int.random(in: 1...maxLabel, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
        let origin = ascendingOrigins
            ? UInt64(index / 3)  // runs of equal origins, ascending
            : UInt64.random(in: 0...UInt64(count / 2), using: &random) | (UInt64.random(in: 0...3, using: &random) << 40)
        return TestRecord(number: Int64.random(in: numbers, using: &random), origin: origin, label: label, sequence: index)
    }
}

/// The expected order: the standard library's sort on (number, origin, appending position).
private func referenceSorted(_ records: [TestRecord]) -> [TestRecord] {
    records.sorted { ($0.number, $0.origin, $0.sequence) < ($1.number, $1.origin, $1.sequence) }
}

private func append(_ records: [TestRecord], to sorter: ExternalSorter) throws {
    for record in records {
        if let label = record.label {
            try label.withUnsafeBytes { try sorter.append(number: record.number, origin: record.origin, label: $0) }
        } else {
            try sorter.append(number: record.number, origin: record.origin, label: nil)
        }
    }
}

private func drained(_ sorter: ExternalSorter) throws -> [TestRecord] {
    var out: [TestRecord] = []
    try sorter.drain { number, origin, label in
        out.append(TestRecord(number: number, origin: origin, label: label.map { Array($0) }))
    }
    return out
}

private func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

private func expectSameSequence(_ got: [TestRecord], _ expected: [TestRecord]) {
    #expect(got.count == expected.count)
    if let index = zip(got, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
        Issue.record("first difference at \(index): got \(got[index]), expected \(expected[index])")
    }
}

private let mebibyte = 1 << 20

@Suite("ExternalSorter")
struct ExternalSorterTests {
    @Test("many runs merged in several passes give the standard library's order")
    func multiPassMergeMatchesReference() throws {
        let records = randomRecords(count: 200_000, seed: 1, numbers: 1...5_000)
        let sorter = try ExternalSorter(memoryBudget: mebibyte, temporaryFolder: "/tmp", mergeFanIn: 3)
        try append(records, to: sorter)
        let folder = sorter.spillFolderPath
        #expect(exists(folder))
        let got = try drained(sorter)
        #expect(sorter.runCount > 9)  // more than fanIn^2: merges of merged runs happened
        #expect(sorter.recordCount == records.count)
        #expect(sorter.spilledBytes > 0)
        expectSameSequence(got, referenceSorted(records))
        #expect(!exists(folder))
    }

    @Test("the default fan-in merges all runs at once, with wide E.164-sized numbers")
    func singleMergeMatchesReference() throws {
        let records = randomRecords(count: 60_000, seed: 2, numbers: 1...999_999_999_999_999)
        let sorter = try ExternalSorter(memoryBudget: mebibyte, temporaryFolder: "/tmp")
        try append(records, to: sorter)
        let got = try drained(sorter)
        #expect(sorter.runCount >= 2)
        expectSameSequence(got, referenceSorted(records))
    }

    @Test("ascending origins with many equal numbers keep origin and appending order")
    func ascendingOriginsAreStable() throws {
        let records = randomRecords(count: 80_000, seed: 3, numbers: 1...50, ascendingOrigins: true)
        let sorter = try ExternalSorter(memoryBudget: mebibyte, temporaryFolder: "/tmp", mergeFanIn: 4)
        try append(records, to: sorter)
        let got = try drained(sorter)
        #expect(sorter.runCount >= 2)
        let expected = referenceSorted(records)
        expectSameSequence(got, expected)
    }

    @Test("all-equal numbers come out in origin order")
    func allEqualNumbers() throws {
        var records = randomRecords(count: 50_000, seed: 4, numbers: 7...7)
        var random = SeededGenerator(seed: 40)
        records.shuffle(using: &random)
        for index in records.indices { records[index].sequence = index }
        let sorter = try ExternalSorter(memoryBudget: mebibyte, temporaryFolder: "/tmp", mergeFanIn: 2)
        try append(records, to: sorter)
        let got = try drained(sorter)
        #expect(sorter.runCount >= 2)
        expectSameSequence(got, referenceSorted(records))
    }

    @Test("labels larger than a merge read buffer survive the merge")
    func largeLabels() throws {
        var records = randomRecords(count: 30_000, seed: 5, numbers: 1...1_000)
        for index in stride(from: 0, to: records.count, by: 997) {
            records[index].label = [UInt8](repeating: UInt8(index % 251), count: 150_000 + index)
        }
        let sorter = try ExternalSorter(memoryBudget: mebibyte, temporaryFolder: "/tmp", mergeFanIn: 4)
        try append(records, to: sorter)
        let got = try drained(sorter)
        expectSameSequence(got, referenceSorted(records))
    }

    @Test("without a spill the records come from memory, nil and empty labels kept apart")
    func noSpill() throws {
        let records = randomRecords(count: 2_000, seed: 6, numbers: 1...300)
        #expect(records.contains { $0.label == nil } && records.contains { $0.label == [] })
        let sorter = try ExternalSorter(memoryBudget: 64 * mebibyte, temporaryFolder: "/tmp")
        try append(records, to: sorter)
        let folder = sorter.spillFolderPath
        let got = try drained(sorter)
        #expect(sorter.runCount == 0)
        #expect(sorter.spilledBytes == 0)
        #expect(sorter.recordCount == records.count)
        expectSameSequence(got, referenceSorted(records))
        #expect(got.filter { $0.label == nil }.count == records.filter { $0.label == nil }.count)
        #expect(!exists(folder))
    }

    @Test("zero records")
    func zeroRecords() throws {
        let sorter = try ExternalSorter(memoryBudget: mebibyte, temporaryFolder: "/tmp")
        let folder = sorter.spillFolderPath
        #expect(try drained(sorter).isEmpty)
        #expect(sorter.runCount == 0 && sorter.recordCount == 0)
        #expect(!exists(folder))
    }

    @Test("one record, with an empty label")
    func oneRecord() throws {
        let sorter = try ExternalSorter(memoryBudget: mebibyte, temporaryFolder: "/tmp")
        try append([TestRecord(number: 41_791_234_567, origin: 5, label: [])], to: sorter)
        #expect(try drained(sorter) == [TestRecord(number: 41_791_234_567, origin: 5, label: [])])
    }

    @Test("a throwing body still removes the spill folder", arguments: [false, true])
    func throwingBodyCleansUp(spill: Bool) throws {
        struct Stop: Error {}
        let sorter = try ExternalSorter(memoryBudget: mebibyte, temporaryFolder: "/tmp")
        try append(randomRecords(count: spill ? 60_000 : 100, seed: 7, numbers: 1...1_000), to: sorter)
        let folder = sorter.spillFolderPath
        var seen = 0
        #expect(throws: Stop.self) {
            try sorter.drain { _, _, _ in
                seen += 1
                if seen == 50 { throw Stop() }
            }
        }
        #expect(seen == 50)
        #expect(!exists(folder))
    }

    @Test("deinit without drain removes spill files and folder")
    func deinitCleansUp() throws {
        var sorter: ExternalSorter? = try ExternalSorter(memoryBudget: mebibyte, temporaryFolder: "/tmp")
        try append(randomRecords(count: 60_000, seed: 8, numbers: 1...1_000), to: sorter!)
        let folder = sorter!.spillFolderPath
        #expect(sorter!.runCount >= 1)
        #expect(try !FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        sorter = nil
        #expect(!exists(folder))
    }

    @Test("the spill folder is private and named calldir-sort-")
    func spillFolderShape() throws {
        let parent = FileManager.default.temporaryDirectory.path
        let sorter = try ExternalSorter(memoryBudget: mebibyte, temporaryFolder: parent)
        let folder = sorter.spillFolderPath
        #expect(folder.hasPrefix(parent.hasSuffix("/") ? parent : parent + "/"))
        #expect(folder.split(separator: "/").last!.hasPrefix("calldir-sort-"))
        var info = stat()
        #expect(stat(folder, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
    }

    @Test("an unusable temporary folder is an .io error naming it")
    func unwritableFolder() throws {
        let file = NSTemporaryDirectory() + "calldir-sorter-test-\(getpid())"
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        defer { unlink(file) }
        for folder in ["/nonexistent-calldir-folder", file] {
            do {
                _ = try ExternalSorter(memoryBudget: mebibyte, temporaryFolder: folder)
                Issue.record("no error for \(folder)")
            } catch let error as CallDirError {
                #expect(error.code == .io)
                #expect(error.path == folder)
                #expect(error.message.contains(folder))
            }
        }
    }

    @Test("a spill that cannot be written is an .io error naming the spill file")
    func spillWriteFailure() throws {
        let sorter = try ExternalSorter(memoryBudget: mebibyte, temporaryFolder: "/tmp")
        let folder = sorter.spillFolderPath
        #expect(rmdir(folder) == 0)  // still empty: nothing spilled yet
        do {
            try append(randomRecords(count: 60_000, seed: 9, numbers: 1...1_000), to: sorter)
            Issue.record("no error although the spill folder is gone")
        } catch let error as CallDirError {
            #expect(error.code == .io)
            #expect(error.path?.hasPrefix(folder + "/") == true)
            #expect(error.message.contains("--tmpdir"))
        }
    }

    @Test("a truncated spill file is an .io error, and the folder is still removed")
    func truncatedSpillFile() throws {
        let sorter = try ExternalSorter(memoryBudget: mebibyte, temporaryFolder: "/tmp")
        try append(randomRecords(count: 60_000, seed: 10, numbers: 1...1_000), to: sorter)
        let folder = sorter.spillFolderPath
        let runs = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(!runs.isEmpty)
        let victim = folder + "/" + runs[0]
        let size = try #require(FileManager.default.attributesOfItem(atPath: victim)[.size] as? Int)
        #expect(truncate(victim, off_t(size - 3)) == 0)
        do {
            try sorter.drain { _, _, _ in }
            Issue.record("no error for a truncated spill file")
        } catch let error as CallDirError {
            #expect(error.code == .io)
            #expect(error.path == victim)
        }
        #expect(!exists(folder))
    }

    @Test("impossible budgets are limit errors")
    func impossibleBudgets() throws {
        #expect(throws: CallDirError(.limitExceeded, "a sort memory budget of 1000 bytes is below the minimum "
                                         + "of 1 MiB; raise the memory budget")) {
            _ = try ExternalSorter(memoryBudget: 1_000, temporaryFolder: "/tmp")
        }
        let sorter = try ExternalSorter(memoryBudget: mebibyte, temporaryFolder: "/tmp")
        let huge = [UInt8](repeating: 65, count: mebibyte)
        do {
            try huge.withUnsafeBytes { try sorter.append(number: 1, origin: 0, label: $0) }
            Issue.record("a label as large as the budget was accepted")
        } catch let error as CallDirError {
            #expect(error.code == .limitExceeded)
        }
    }
}
