import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader
import CompileSupport
import TestSupport

/// compile -> export -> compile on the public lists in ../shared/realdata: the same bytes.
@Suite("Export round trips on real lists")
struct ExportRealListTests {
    static let present = RealLists.ftc != nil && RealLists.swissNumbers != nil && RealLists.swissPatterns != nil
        && RealLists.begone != nil && RealLists.french != nil

    /// Exports `original` in `format`, recompiles it as the one kind (or with --list), and
    /// expects the same bytes.
    func roundTrip(_ original: String, _ format: ExportFormat, kind: ExportKind, folder: TempFolder) throws {
        var options = ExportOptions(format: format)
        options.kind = kind
        let exported = folder.file("export.\(format.rawValue)")
        _ = try Exporter(index: CallDirIndex(path: original), options: options).run(to: exported)
        var compile = CompileOptions(output: folder.file("again.calldir"))
        switch kind {
        case .block: compile.blockSources = [.file(exported)]
        case .identify: compile.identifySources = [.file(exported)]
        case .all: compile.blockSources = [.list(exported)]; compile.identifySources = [.list(exported)]
        }
        var diagnostics: [Diagnostic] = []
        try CompileSupport.compile(compile, diagnostics: &diagnostics)
        #expect(fileBytes(folder.file("again.calldir")) == fileBytes(original), "\(format.rawValue) of \(original)")
    }

    @Test("FTC, Swiss numbers and patterns, Begone, French ranges: text, csv, saracroche and begone recompile identically",
          .enabled(if: present, "../shared/realdata is not present: skipped"))
    func realLists() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let ftc = folder.file("ftc.calldir")
        try compile(block: [RealLists.ftc!], output: ftc) {
            $0.country = 1; $0.sort = true; $0.dedupe = true; $0.skipInvalid = true
        }
        try roundTrip(ftc, .text, kind: .block, folder: folder)

        let swiss = folder.file("swiss.calldir")
        try compile(block: [RealLists.swissNumbers!, RealLists.swissPatterns!], output: swiss) { $0.sort = true }
        for format in [ExportFormat.text, .csv, .begone] { try roundTrip(swiss, format, kind: .block, folder: folder) }
        try roundTrip(swiss, .saracroche, kind: .all, folder: folder)

        let begone = folder.file("begone.calldir")
        try compile(identify: [RealLists.begone!], output: begone) { $0.sort = true; $0.dedupe = true }
        for format in [ExportFormat.text, .csv, .begone] { try roundTrip(begone, format, kind: .identify, folder: folder) }
        try roundTrip(begone, .saracroche, kind: .all, folder: folder)

        let french = folder.file("french.calldir")
        try compile(block: [RealLists.french!], output: french) { $0.skipInvalid = true }
        #expect(try CallDirIndex(path: french).metadata.blockedRangeNumbers == 14_951_000)
        for format in [ExportFormat.text, .saracroche] {
            try roundTrip(french, format, kind: format == .text ? .block : .all, folder: folder)
        }
    }
}
