import Foundation
import Testing
@testable import CallDir
@testable import CallDirReader
import CallDirLookup
import CallDirSimulator
@testable import CallDirPatch
@testable import CallDirWriter
import CompileSupport
import TestSupport

/// The forge sweep through every command that opens an index (issue 23): each forged file,
/// every checksum resealed, goes through inspect, verify, lookup, lookup -, export in every
/// format, simulate, simulate --from, diff and patch, as the CLI runs them (library calls:
/// the commands are thin wrappers over these). The daemon's reload of the same forgeries is
/// in CallDirServerTests (`ForgeReloadTests`). Errors are expected; a trap fails the run.
@Suite("Forged indexes through every command")
struct ForgeCommandTests {
    /// The damage tests' index (blocks of both kinds, shared and stream labels, both range
    /// kinds) with ranges of 100 numbers instead of 10,000, so that the exports that expand
    /// ranges keep the sweep to seconds.
    static func makeIndex(_ folder: TempFolder) throws -> (path: String, probes: [Int64]) {
        let blocked = (0..<600).map { 14_085_550_000 + Int64($0) * 7 }
        let block = folder.write("b.txt", blocked.map { "\($0)\n" }.joined() + "190055500##\n")
        let identified = (0..<300).map { 18_005_550_000 + Int64($0) * 13 }
        let identify = folder.write("i.csv", identified.map { "\($0),\($0 % 3 == 0 ? "Business \($0)" : "Caller \($0 % 5)")\n" }
            .joined() + "331620000##,Range\n")
        let path = folder.file("small.calldir")
        try compile(block: [block], identify: [identify], output: path)
        let probes = blocked.enumerated().filter { $0.offset % 40 == 0 }.map(\.element)
            + identified.enumerated().filter { $0.offset % 30 == 0 }.map(\.element)
            + [14_085_550_001, 18_005_550_001, 19_005_550_012, 33_162_000_012, 12_125_550_000, 1, Int64.max - 1, Int64.max]
        return (path, probes)
    }

    /// Metadata extremes: counts of 0, Int64.max, Int64.max - 1, negative, and one off from
    /// the sections (the original + 1).
    static func metadataForgeries(of original: UInt64) -> [UInt64] {
        [0, UInt64(Int64.max), UInt64(Int64.max) - 1, UInt64(bitPattern: -1), UInt64(bitPattern: Int64.min), original &+ 1]
    }

    /// Where outputs go: a private device node when the test may make one (no temporary is
    /// fsync'd then, which keeps the sweep to seconds), else a file in the folder.
    static func sink(_ folder: TempFolder) -> String {
        let node = folder.file("sink")
        return mknod(node, S_IFCHR | 0o666, dev_t(0x103)) == 0 ? node : folder.file("sink.out")
    }

    /// What `calldir simulate [--from OLD] INDEX` does: both opened verified, OLD loaded
    /// completely into a simulated device, then the update (or the load) driven request by request.
    static func simulate(_ path: String, from old: String?) throws {
        let index = try CallDirIndex(path: path, verify: true)
        let simulator = CallKitSimulator()
        var committed: LoadCheckpoint?
        var previous: CallDirIndex?
        if let old {
            let oldIndex = try CallDirIndex(path: old, verify: true)
            committed = try drive(DeviceLoader(index: oldIndex, requestSize: 1_999_999), simulator, from: nil)
            previous = oldIndex
        }
        _ = try drive(DeviceLoader(index: index, previous: previous, requestSize: 1_999_999), simulator, from: committed)
    }

    static func drive(_ loader: DeviceLoader, _ simulator: CallKitSimulator, from start: LoadCheckpoint?) throws -> LoadCheckpoint? {
        var committed = start
        var requests = 0
        while true {
            simulator.beginRequest(systemSaysIncremental: committed != nil || requests > 0)
            let step = try loader.loadRequest(into: simulator, resumingFrom: committed)
            requests += 1
            guard simulator.endRequest().succeeded, !step.isFinished else { return step.checkpoint }
            committed = step.checkpoint
        }
    }

    /// Every command on `forged`; `good` is an intact index (the other side of diff and
    /// simulate --from). `variant` picks the kind of the one-kind formats (both over the sweep).
    static func everyCommand(_ forged: String, good: String, sink: String, folder: TempFolder, probes: [Int64], variant: Int) {
        // verify; inspect (and every other command) opens the file lazily first: when that
        // fails, each of them fails the same way at its first line, so the rest is skipped.
        _ = try? CallDirIndex(path: forged, verify: true)
        guard let file = try? MappedFile(path: forged), let index = try? CallDirIndex(file: file) else { return }
        _ = index.infoText
        _ = index.infoJSON.rendered()
        // lookup, lookup -
        for n in probes {
            try? index.lookup(n).withView { view in
                var line: [UInt8] = []
                line.appendJSON(maxBytes: JSONWriter.answerBound(view, input: .e164)) { $0.answer(view, input: .e164) }
            }
        }
        _ = try? index.lookup(probes)
        // export: every format (one-kind formats alternate block and identify), text expanded too
        for format in ExportFormat.allCases {
            var options = ExportOptions(format: format)
            options.kind = format.holdsBothKinds ? nil : (variant % 2 == 0 ? .block : .identify)
            options.maxNumbers = 100_000
            _ = try? Exporter(index: index, options: options).run(to: sink)
        }
        var expand = ExportOptions(format: .text)
        expand.kind = variant % 2 == 0 ? .identify : .block
        expand.ranges = .expand
        expand.maxNumbers = 100_000
        _ = try? Exporter(index: index, options: expand).run(to: sink)
        // simulate, simulate --from (both ways)
        _ = try? simulate(forged, from: nil)
        _ = try? simulate(good, from: forged)
        _ = try? simulate(forged, from: good)
        // diff both ways, and patch with the delta from the forged file
        let delta = folder.file("forged.delta")
        if let new = try? CallDirIndex(path: good) {
            if (try? Differ.diff(old: index, new: new, output: delta, temporaryFolder: folder.path)) != nil, let d = try? DeltaFile(path: delta) {
                _ = try? Patcher.patch(old: index, delta: d, output: sink, temporaryFolder: folder.path)
            }
            _ = try? Differ.diff(old: new, new: index, output: sink, temporaryFolder: folder.path)
        }
    }

    @Test("every field forged (metadata extremes included) through every command: errors, never a trap")
    func everyFieldEveryCommand() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (path, probes) = try Self.makeIndex(folder)
        let original = fileBytes(path)
        let good = folder.file("good.calldir")
        try compile(block: [folder.write("g.txt", "14085550000\n14085550007\n1900556####\n")],
                    identify: [folder.write("g.csv", "18005550000,Good\n3316201####,Good range\n")], output: good)
        let sink = Self.sink(folder)
        let forged = folder.file("forged.calldir")
        let metadata = try #require(Forger(bytes: original).section(1))
        var count = 0
        for field in Forger(bytes: original).fields {
            let value = Forger(bytes: original).read(field.offset, field.width)!
            let isMetadata = field.offset >= metadata.offset && field.offset < metadata.offset + 96
            // Every metadata field with its extremes; the others with the standard forgeries,
            // inside blocks and label stores one forgery in four (they are many, and alike).
            var values = isMetadata ? Self.metadataForgeries(of: value) : Forger.forgeries(of: value, width: field.width)
            if field.name.contains(" byte ") { values = values.enumerated().filter { $0.offset % 4 == 0 }.map(\.element) }
            for forgery in values where forgery != value {
                var forger = Forger(bytes: original)
                forger.write(field.offset, field.width, forgery)
                forger.reseal()
                _ = FileManager.default.createFile(atPath: forged, contents: Data(forger.bytes))
                Self.everyCommand(forged, good: good, sink: sink, folder: folder, probes: probes, variant: count)
                count += 1
            }
        }
        #expect(count > 500, "the sweep ran \(count) forgeries")
    }

    @Test("metadata counts near Int64.max: export --ranges expand and simulate give errors or right answers")
    func metadataExtremes() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let (path, _) = try Self.makeIndex(folder)
        let original = fileBytes(path)
        let metadata = try #require(Forger(bytes: original).section(1))
        for field in 0..<12 {
            for forgery in Self.metadataForgeries(of: Forger(bytes: original).read(metadata.offset + 8 * field, 8)!) {
                var forger = Forger(bytes: original)
                forger.write(metadata.offset + 8 * field, 8, forgery)
                forger.reseal()
                let forged = folder.write("m.calldir", forger.bytes)
                for kind in [ExportKind.block, .identify] {
                    var options = ExportOptions(format: .text)
                    options.kind = kind
                    options.ranges = .expand
                    if let index = try? CallDirIndex(path: forged) {
                        _ = try? Exporter(index: index, options: options).run(to: folder.file("out.txt"))
                    }
                }
                // simulate verifies first: a forged count disagrees with the sections.
                if field != 9, forgery != Forger(bytes: original).read(metadata.offset + 8 * field, 8)! {  // 9: build time
                    #expect(throws: CallDirError.self, "metadata field \(field) = \(forgery)") { try Self.simulate(forged, from: nil) }
                }
            }
        }
    }
}
