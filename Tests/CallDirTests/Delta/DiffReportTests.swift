import Foundation
import Testing
@testable import CallDir
import CallDirReader
import CompileSupport
import TestSupport

@Suite("diff --report: ranges and label changes")
struct DiffReportTests {
    @Test("ranges: added, removed, resized (grown, cut, split), relabeled and unchanged, per kind")
    func ranges() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let oldBlock = folder.write("old.txt", ["33100000000-33100000999", "33200000000-33200000999", "33300000000-33300000999",
                                                "33400000000-33400000999"])
        // 331: unchanged; 332: grown; 333: split in two by a hole; 334: removed; 335: added.
        let newBlock = folder.write("new.txt", ["33100000000-33100000999", "33200000000-33200001999", "33300000000-33300000099",
                                                "33300000500-33300000999", "33500000000-33500000009"])
        let oldIdentify = folder.write("old.csv", ["33600000000-33600000099,A", "33700000000-33700000099,B"])
        let newIdentify = folder.write("new.csv", ["33600000000-33600000099,A2", "33700000000-33700000049,B"])
        try compile(block: [oldBlock], identify: [oldIdentify], output: folder.file("old.calldir"))
        try compile(block: [newBlock], identify: [newIdentify], output: folder.file("new.calldir"))
        let report = try DiffReport.make(old: CallDirIndex(path: folder.file("old.calldir")),
                                         new: CallDirIndex(path: folder.file("new.calldir")), maxNumbers: 4_000)
        let b = report.blockingRanges
        #expect((b.added, b.removed, b.resized, b.relabeled, b.unchanged) == (1, 1, 3, 0, 1))
        #expect(b.addedExamples == [NumberRange(first: 33_500_000_000, last: 33_500_000_009)])
        #expect(b.removedExamples == [NumberRange(first: 33_400_000_000, last: 33_400_000_999)])
        #expect(b.resizedExamples.map(\.new.first) == [33_200_000_000, 33_300_000_000, 33_300_000_500])
        let i = report.identificationRanges
        #expect((i.added, i.removed, i.resized, i.relabeled, i.unchanged) == (0, 0, 1, 1, 0))
        // Numbers: +1,000 (332) +10 (335) blocking; -400 (333's hole) -1,000 (334); 100 relabeled A -> A2, 50 removed.
        #expect((report.blocking.added, report.blocking.removed, report.blocking.relabeled) == (1_010, 1_400, 0))
        #expect((report.identification.added, report.identification.removed, report.identification.relabeled) == (0, 50, 100))
        #expect(report.topLabelChanges.map { "\($0.from)>\($0.to) \($0.numbers)" } == ["A>A2 100"])
        #expect(report.topLabelChanges[0].examples == [33_600_000_000])
        // 3,610 + 150 entries of 4,000: near the budget (90% or more), not over.
        #expect(report.newDeviceEntries == 3_760 && report.budgetState == .near)
    }

    @Test("label changes: a bounded map; past its capacity the heaviest changes stay, flagged approximate")
    func boundedLabels() {
        var counter = LabelChangeCounter()
        counter.add(.init(from: "Spam", to: "Scam"), numbers: 100_000, example: 1)
        for i in 0..<(LabelChangeCounter.capacity * 3) {
            counter.add(.init(from: "L\(i)", to: "M\(i)"), numbers: 1, example: Int64(i))
        }
        counter.add(.init(from: "Spam", to: "Scam"), numbers: 5, example: 2)
        let top = counter.top(3)
        #expect(counter.pruned)
        #expect(top[0].from == "Spam" && top[0].numbers == 100_005 && top[0].examples == [1, 2])
        #expect(top.count == 3)

        var small = LabelChangeCounter()
        for i in 0..<10 { small.add(.init(from: "a", to: "b\(i % 3)"), numbers: Int64(i), example: Int64(i)) }
        #expect(!small.pruned && small.distinct == 3)
        #expect(small.top(10).map(\.numbers) == [18, 15, 12])  // b0: 0+3+6+9, b2: 2+5+8, b1: 1+4+7
    }
}
