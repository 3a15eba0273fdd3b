import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader
@testable import CallDirPatch
@testable import CallDirWriter
import CompileSupport
import TestSupport

/// File-system failures injected through `Syscalls` (no `ulimit`): a compile, with or without
/// a spilling sort and a rejects list, a diff, a patch and an export each leave the old output byte-identical
/// and no temporary behind; readers report the failure as a `CallDirError` naming the file.
/// Every fault is scoped to the test's own folder, and each test checks that it fired.
@Suite("Injected file-system faults", .enabled(if: faultInjectionCompiled, Comment(rawValue: faultInjectionSkipReason)))
struct InjectedFaultTests {
#if DEBUG
    struct Case: CustomTestStringConvertible, Sendable {
        let call: SystemCall
        let code: Int32
        /// The part of the path after the test folder the fault is scoped to.
        let target: String
        var testDescription: String { "\(call.rawValue) \(SystemError(code: code).text) on \(target)" }
    }

    /// Failures while publishing an output file (index, rejects list, export).
    static func publishingCases(_ target: String) -> [Case] {
        [Case(call: .write, code: ENOSPC, target: target), Case(call: .write, code: EFBIG, target: target),
         Case(call: .fsync, code: EIO, target: target), Case(call: .rename, code: EIO, target: target)]
    }

    static let compileCases = publishingCases("/.index.cdx.calldir.tmp")
        + [Case(call: .mmap, code: ENOMEM, target: "/.index.cdx.calldir.tmp"),  // the read-back pass
           Case(call: .open, code: EACCES, target: "/.index.cdx.calldir.tmp")]
    static let rejectsCases = publishingCases("/.rejects.txt.calldir.tmp")
    static let spillCases = [Case(call: .write, code: ENOSPC, target: "/calldir-sort-"),
                             Case(call: .write, code: EFBIG, target: "/calldir-sort-"),
                             Case(call: .read, code: EIO, target: "/calldir-sort-"),
                             Case(call: .mkdir, code: ENOSPC, target: "/calldir-sort-"),
                             Case(call: .open, code: EMFILE, target: "/calldir-sort-")]
    static let exportCases = publishingCases("/.export.txt.calldir.tmp")

    /// A list of up to `count` NANP numbers, ascending or not (one bad row when `withBadRow`).
    static func writeList(_ folder: TempFolder, _ name: String, count: Int, seed: UInt64, sorted: Bool,
                          withBadRow: Bool = false) -> String {
        var rng = SeededGenerator(seed: seed)
        var numbers = (0..<count).map { _ in randomNANP(using: &rng) }
        if sorted { numbers = Set(numbers).sorted() }
        var rows = numbers.map(String.init)
        if withBadRow { rows.insert("not a number", at: count / 2) }
        return folder.write(name, rows.joined(separator: "\n") + "\n")
    }

    /// An I/O error that gives errno's text (and names `path` when given).
    static func expectReports(_ error: CallDirError?, _ code: Int32, path: String? = nil,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error?.code == .io, sourceLocation: sourceLocation)
        #expect(error?.message.contains(SystemError(code: code).text) == true, "\(String(describing: error))",
                sourceLocation: sourceLocation)
        if let path { #expect(error?.path == path, sourceLocation: sourceLocation) }
    }

    /// Compiles the old outputs, then a different list under the fault; checks the failure,
    /// the old outputs and that only the expected files remain.
    func expectOldOutputsSurvive(_ fault: Case, sort: Bool, rejects: Bool, count: Int) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let output = folder.file("index.cdx")
        let rejectsPath = rejects ? folder.file("rejects.txt") : nil
        func configure(_ options: inout CompileOptions) {
            options.sort = sort
            options.dedupe = sort
            options.memoryBudget = 1 << 20
            options.temporaryFolder = folder.path
            options.skipInvalid = rejects
            options.rejectsPath = rejectsPath
        }
        let old = Self.writeList(folder, "old.txt", count: count, seed: 1, sorted: !sort, withBadRow: rejects)
        try compile(block: [old], output: output, configure: configure)
        let oldIndex = fileBytes(output)
        let oldRejects = rejectsPath.map(fileBytes)
        let new = Self.writeList(folder, "new.txt", count: count, seed: 2, sorted: !sort, withBadRow: rejects)
        let id = Syscalls.inject(fault.call, errno: fault.code, pathContaining: folder.path + fault.target)
        let error = #expect(throws: CallDirError.self) {
            try compile(block: [new], output: output, configure: configure)
        }
        let fired = Syscalls.removeFault(id)
        Self.expectReports(error, fault.code)
        #expect(fired > 0, "the fault never fired: the code path was not taken")
        #expect(fileBytes(output) == oldIndex, "the old index changed")
        if let rejectsPath { #expect(fileBytes(rejectsPath) == oldRejects, "the old rejects list changed") }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(left == (["index.cdx", "new.txt", "old.txt"] + (rejects ? ["rejects.txt"] : [])).sorted())
    }

    @Test("compile without --sort: a failed index write, fsync, rename, map or create leaves the old index",
          arguments: compileCases)
    func compileFaults(_ fault: Case) throws {
        try expectOldOutputsSurvive(fault, sort: false, rejects: false, count: 2_000)
    }

    @Test("compile with --rejects: a failed rejects-list write, fsync or rename leaves both old outputs",
          arguments: rejectsCases)
    func rejectsFaults(_ fault: Case) throws {
        try expectOldOutputsSurvive(fault, sort: true, rejects: true, count: 2_000)
    }

    @Test("compile --sort that spills: a failed spill write, read, folder or file creation leaves the old index",
          arguments: spillCases)
    func spillFaults(_ fault: Case) throws {
        try expectOldOutputsSurvive(fault, sort: true, rejects: false, count: 60_000)
    }

    @Test("identification labels spilled by the coding thread (a nameless file in the temporary folder): a failed write there fails the compile with its error and leaves the old index",
          arguments: [Case(call: .write, code: ENOSPC, target: "/calldir-label-spill"), Case(call: .write, code: EIO, target: "/calldir-label-spill")])
    func labelSpillFaults(_ fault: Case) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        // 150,000 labels of their own: past the 32,768 of the symbol table's sample, the rest are
        // coded on the helper thread, which creates the nameless spill file and, its 1 MiB buffer
        // full, writes to it while the compile thread reads rows.
        let rows = (0..<150_000).map { "\(12_015_550_000 + 3 * $0),Caller number \($0) of a long list" }
        let list = folder.write("labels.csv", rows)
        try compile(block: [Self.writeList(folder, "old.txt", count: 100, seed: 1, sorted: true)], output: folder.file("index.cdx"))
        let old = fileBytes(folder.file("index.cdx"))
        let id = Syscalls.inject(fault.call, errno: fault.code, pathContaining: folder.path + fault.target)
        let error = #expect(throws: CallDirError.self) {
            try compile(identify: [list], output: folder.file("index.cdx")) { $0.temporaryFolder = folder.path }
        }
        let fired = Syscalls.removeFault(id)
        Self.expectReports(error, fault.code)
        #expect(fired > 0, "the fault never fired")
        #expect(fileBytes(folder.file("index.cdx")) == old)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(left == ["index.cdx", "labels.csv", "old.txt"])
        // Without the fault the same list compiles and answers its labels.
        try compile(identify: [list], output: folder.file("index.cdx")) { $0.temporaryFolder = folder.path }
        #expect(try CallDirIndex(path: folder.file("index.cdx"), verify: true).lookup(12_015_550_000 + 3 * 149_999).label
                == "Caller number 149999 of a long list")
    }

    @Test("export: a failed write, fsync or rename leaves the old export", arguments: exportCases)
    func exportFaults(_ fault: Case) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let list = Self.writeList(folder, "list.txt", count: 3_000, seed: 3, sorted: true)
        try compile(block: [list], output: folder.file("index.cdx"))
        let index = try CallDirIndex(path: folder.file("index.cdx"))
        let oldExport = folder.write("export.txt", "an older export\n")
        let id = Syscalls.inject(fault.call, errno: fault.code, pathContaining: folder.path + fault.target)
        let error = #expect(throws: CallDirError.self) {
            try Exporter(index: index, options: ExportOptions(format: .text)).run(to: oldExport)
        }
        let fired = Syscalls.removeFault(id)
        Self.expectReports(error, fault.code, path: oldExport)
        #expect(fired > 0, "the fault never fired")
        #expect(String(decoding: fileBytes(oldExport), as: UTF8.self) == "an older export\n")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(left == ["export.txt", "index.cdx", "list.txt"])
        // Without the fault the same export goes through: the failure was the fault's.
        #expect(try Exporter(index: index, options: ExportOptions(format: .text)).run(to: oldExport).records > 0)
    }

    /// The deltas' outputs: `calldir diff` writes d.delta, `calldir patch` new.calldir.
    static let deltaCases = publishingCases("/.d.delta.calldir.tmp").map { ("diff", $0) }
        + publishingCases("/.new.calldir.calldir.tmp").map { ("patch", $0) }

    @Test("diff and patch: a failed write, fsync or rename leaves the old output", arguments: deltaCases)
    func deltaFaults(_ command: String, _ fault: Case) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let oldList = Self.writeList(folder, "old.txt", count: 3_000, seed: 4, sorted: true)
        let newList = Self.writeList(folder, "new.txt", count: 3_000, seed: 5, sorted: true)
        try compile(block: [oldList], output: folder.file("old.calldir"))
        try compile(block: [newList], output: folder.file("made.calldir"))
        let old = try CallDirIndex(path: folder.file("old.calldir"))
        func diff() throws {
            _ = try Differ.diff(old: old, new: CallDirIndex(path: folder.file("made.calldir")), output: folder.file("d.delta"),
                                temporaryFolder: folder.path)
        }
        func patch() throws {
            _ = try Patcher.patch(old: old, delta: DeltaFile(path: folder.file("d.delta")), output: folder.file("new.calldir"),
                                  temporaryFolder: folder.path)
        }
        if command == "patch" { try diff() }
        let target = folder.file(command == "diff" ? "d.delta" : "new.calldir")
        _ = folder.write(command == "diff" ? "d.delta" : "new.calldir", "an older output\n")
        let before = fileBytes(target)
        let id = Syscalls.inject(fault.call, errno: fault.code, pathContaining: folder.path + fault.target)
        let error = #expect(throws: CallDirError.self) { try command == "diff" ? diff() : patch() }
        let fired = Syscalls.removeFault(id)
        Self.expectReports(error, fault.code, path: target)
        #expect(fired > 0, "the fault never fired")
        #expect(fileBytes(target) == before)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(left == ["d.delta", "made.calldir", "new.calldir", "new.txt", "old.calldir", "old.txt"].filter {
            command == "patch" || $0 != "new.calldir"
        })
        // Without the fault the same command goes through.
        try command == "diff" ? diff() : patch()
        if command == "patch" { #expect(fileBytes(target) == fileBytes(folder.file("made.calldir"))) }
    }

    @Test("an input list read with EIO: a CallDirError naming the file, the old index kept")
    func inputReadFault() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let list = Self.writeList(folder, "list.txt", count: 200_000, seed: 4, sorted: true)
        let output = folder.file("index.cdx")
        let old = folder.write("index.cdx", "old bytes")
        // after: 1, so the failure comes mid-file, after the reader has started parsing.
        let id = Syscalls.inject(.read, errno: EIO, pathContaining: list, after: 1)
        defer { Syscalls.removeFault(id) }
        let error = #expect(throws: CallDirError.self) { try compile(block: [list], output: output) }
        Self.expectReports(error, EIO, path: list)
        #expect(Syscalls.timesFired(id) == 1)
        #expect(fileBytes(old) == Array("old bytes".utf8))
    }

    @Test("an index whose open or mapping fails: a CallDirError naming it, not a crash",
          arguments: [SystemCall.open, .mmap])
    func indexOpenFault(_ call: SystemCall) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let list = Self.writeList(folder, "list.txt", count: 100, seed: 5, sorted: true)
        let path = folder.file("index.cdx")
        try compile(block: [list], output: path)
        let id = Syscalls.inject(call, errno: EIO, pathContaining: path)
        defer { Syscalls.removeFault(id) }
        let error = #expect(throws: CallDirError.self) { try CallDirIndex(path: path) }
        Self.expectReports(error, EIO, path: path)
        #expect(Syscalls.timesFired(id) == 1)
        Syscalls.removeFault(id)
        #expect(try CallDirIndex(path: path).blockedCount > 0)
    }
#else
    @Test("injected faults", .disabled(Comment(rawValue: faultInjectionSkipReason)))
    func skipped() {}
#endif
}
