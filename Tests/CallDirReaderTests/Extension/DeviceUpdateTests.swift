import CallDirReader
import CallDirSimulator
import Testing
import TestSupport

@Suite("Device updates")
struct DeviceUpdateTests {
    /// Loads `old` completely into a fresh simulator; returns it and the finished checkpoint.
    static func deviceHolding(_ old: CallDirIndex) throws -> (CallKitSimulator, LoadCheckpoint) {
        let simulator = CallKitSimulator()
        let steps = try loadFully(DeviceLoader(index: old), into: simulator)
        return (simulator, steps.last!.checkpoint)
    }

    static func request(_ loader: DeviceLoader, _ simulator: CallKitSimulator, from checkpoint: LoadCheckpoint?,
                        incremental: Bool = true) throws -> (LoadStep, CallKitSimulator.RequestReport) {
        simulator.beginRequest(systemSaysIncremental: incremental)
        let step = try loader.loadRequest(into: simulator, resumingFrom: checkpoint)
        return (step, simulator.endRequest())
    }

    @Test("a 1,000,000-number range shrunk by 10 is 10 removals; a relabelled range is a removal and an addition per number")
    func minimalRanges() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let old = try buildIndex(folder, "old.calldir", block: ["33100000000-33100999999", "33200000000"],
                                   identify: ["33300000000-33300000004,Old", "33300000010-33300099999,Same"])
        let new = try buildIndex(folder, "new.calldir", block: ["33100000005-33100999994", "33200000000"],
                                   identify: ["33300000000-33300000004,New", "33300000010-33300099999,Same"])
        let (simulator, finished) = try Self.deviceHolding(old)
        let (step, report) = try Self.request(DeviceLoader(index: new, previous: old), simulator, from: finished)
        #expect(report.succeeded && report.kind == .incremental && step.isFinished)
        #expect(step.blockingRemovals == 10 && step.blockingEntries == 0)
        #expect(step.identificationRemovals == 5 && step.identificationEntries == 5)
        #expect(report.removes == 15 && report.adds == 5)
        #expect(!simulator.isBlocking(33_100_000_004) && simulator.isBlocking(33_100_000_005) && !simulator.isBlocking(33_100_999_995))
        #expect(simulator.label(of: 33_300_000_002) == "New" && simulator.label(of: 33_300_050_000) == "Same")
        #expect(simulator.entryCount == new.metadata.deviceEntries)
        #expect(try LoadCheckpoint(bytes: step.checkpoint.bytes) == step.checkpoint && step.checkpoint.update == nil)
        // The next update, NEW -> NEWER, starts from that checkpoint.
        let newer = try buildIndex(folder, "newer.calldir", block: ["33100000005-33100999994"],
                                     identify: ["33300000010-33300099999,Same"])
        let (next, nextReport) = try Self.request(DeviceLoader(index: newer, previous: new), simulator, from: step.checkpoint)
        #expect(nextReport.succeeded && next.removals == 6 && next.entries == 6 && next.isFinished)
        #expect(simulator.entryCount == newer.metadata.deviceEntries)
    }

    @Test("the cap counts removals and additions; each request is a span: its removals, then its additions, a relabel's two in one")
    func cap() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        // A range both hold, so that the update costs less than a complete load.
        let old = try buildIndex(folder, "old.calldir", block: (0..<40).map { String(33_100_000_000 + $0 * 3) } + ["33200000000-33200000999"],
                                   identify: (0..<30).map { "\(33_100_000_000 + $0 * 5),A" })
        let new = try buildIndex(folder, "new.calldir", block: (0..<40).map { String(33_100_000_001 + $0 * 3) } + ["33200000000-33200000999"],
                                   identify: (0..<30).map { "\(33_100_000_000 + $0 * 5),\($0 % 2 == 0 ? "A" : "B")" })
        let (simulator, finished) = try Self.deviceHolding(old)
        let loader = try DeviceLoader(index: new, previous: old, requestSize: 7)
        var checkpoint = finished
        var requests = 0
        var spanEnds: [Int64] = []
        repeat {
            let recorder = CallRecorder(simulator)
            simulator.beginRequest(systemSaysIncremental: true)
            let step = try loader.loadRequest(into: recorder, resumingFrom: checkpoint)
            let report = simulator.endRequest()
            #expect(report.succeeded && report.kind == .incremental && report.adds + report.removes <= 7)
            #expect(step.entries == report.adds + report.removes)
            // Removals first, then additions: one switch per request.
            #expect(recorder.calls.map(\.removes) == recorder.calls.map(\.removes).sorted(by: { $0 && !$1 }))
            // A relabelled number (odd multiples of 5 in identification) is removed and re-added in the same request.
            let removedIDs = Set(recorder.calls.filter { $0.removes && $0.kind == .identification }.map(\.number))
            let addedIDs = Set(recorder.calls.filter { !$0.removes && $0.kind == .identification }.map(\.number))
            #expect(removedIDs == addedIDs)
            checkpoint = step.checkpoint
            if checkpoint.update != nil { spanEnds.append(checkpoint.updateDoneThrough) }
            requests += 1
        } while !checkpoint.isFinished && requests < 100
        // 40 + 15 removals, 40 + 15 additions: 110 changes, at least 16 requests of at most 7.
        #expect(requests >= 16 && requests < 30)
        #expect(spanEnds == spanEnds.sorted() && Set(spanEnds).count == spanEnds.count)
        #expect(DeviceState(simulator).count == Int(new.metadata.deviceEntries) && simulator.label(of: 33_100_000_005) == "B")
    }

    @Test("an update that would send more changes than NEW's entries is a complete load of NEW")
    func costlyUpdateIsCompleteLoad() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let old = try buildIndex(folder, "old.calldir", block: ["33100000000-33100000999"])
        let new = try buildIndex(folder, "new.calldir", block: ["33200000000-33200000099"])  // 1,100 changes, 100 entries
        let (simulator, finished) = try Self.deviceHolding(old)
        let loader = try DeviceLoader(index: new, previous: old)
        let (step, report) = try Self.request(loader, simulator, from: finished)
        #expect(report.succeeded && report.kind == .complete, "\(report)")
        #expect(step.removals == 0 && step.entries == 100 && step.isFinished, "\(step)")
        #expect(simulator.entryCount == 100)
        // Just below the threshold, the update is taken.
        let near = try buildIndex(folder, "near.calldir", block: ["33100000000-33100000949", "33300000000-33300000049"])
        let (again, before) = try Self.deviceHolding(old)
        let (update, updateReport) = try Self.request(DeviceLoader(index: near, previous: old), again, from: before)
        #expect(updateReport.kind == .incremental && update.removals == 50 && update.blockingEntries == 50)
    }

    @Test("a failure mid-update wipes the store; the next request is a complete load of NEW")
    func failureMidUpdate() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let old = try buildIndex(folder, "old.calldir", block: ["33100000000-33100000099"])
        let new = try buildIndex(folder, "new.calldir", block: ["33100000050-33100000149"], identify: ["33100000000,X"])
        let (simulator, finished) = try Self.deviceHolding(old)
        let loader = try DeviceLoader(index: new, previous: old, requestSize: 20)
        let (first, report) = try Self.request(loader, simulator, from: finished)
        // The first span: number ...000 (a removal and an identification addition), then 18 removals.
        #expect(report.succeeded && first.blockingRemovals == 19 && first.identificationEntries == 1)
        #expect(first.checkpoint.update != nil && first.checkpoint.updateDoneThrough == 33_100_000_018)
        simulator.beginRequest(systemSaysIncremental: true)
        _ = try loader.loadRequest(into: simulator, resumingFrom: first.checkpoint)
        #expect(simulator.interrupt().failure?.code == .loadingInterrupted && simulator.entryCount == 0)
        // The app discarded both checkpoints: the extension starts over without one.
        let (restart, restartReport) = try Self.request(loader, simulator, from: nil)
        #expect(restartReport.succeeded && restart.kind == .complete && restart.removals == 0)
        #expect(restart.checkpoint.update == nil && restart.entries == 20)
        try loadFully(loader, into: simulator, from: restart.checkpoint)
        #expect(simulator.entryCount == 101 && simulator.label(of: 33_100_000_000) == "X")
    }

    @Test("no update without a finished load of OLD read as incremental: complete loads of NEW instead")
    func fallbacks() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let old = try buildIndex(folder, "old.calldir", block: ["33100000000-33100000099"])
        let new = try buildIndex(folder, "new.calldir", block: ["33100000000-33100000089"])
        let loader = try DeviceLoader(index: new, previous: old, requestSize: 1_000)
        let (simulator, finished) = try Self.deviceHolding(old)
        // isIncremental false: complete.
        let (refused, report) = try Self.request(loader, simulator, from: finished, incremental: false)
        #expect(report.kind == .complete && refused.entries == 90 && refused.isFinished && refused.checkpoint.update == nil)
        // A load of OLD not finished: complete.
        var partial = finished
        partial.identificationFinished = false
        let (fromPartial, partialReport) = try Self.request(loader, simulator, from: partial)
        #expect(partialReport.kind == .complete && fromPartial.removals == 0 && fromPartial.entries == 90)
        // An update checkpoint from another index: complete.
        var foreign = LoadCheckpoint(index: new)
        foreign.update = .init(fromChecksum: old.checksum &+ 1, fromByteCount: Int64(old.file.count))
        let (fromForeign, foreignReport) = try Self.request(loader, simulator, from: foreign)
        #expect(foreignReport.kind == .complete && fromForeign.entries == 90)
        // A loader without `previous` never takes an update checkpoint for a normal one.
        var ours = foreign
        ours.update = .init(from: old)
        let (plain, plainReport) = try Self.request(try DeviceLoader(index: new), simulator, from: ours)
        #expect(plainReport.kind == .complete && plain.entries == 90)
        // The same index twice: an update is no update; a finished load stays idle.
        let same = try DeviceLoader(index: new, previous: new)
        let (idle, idleReport) = try Self.request(same, simulator, from: plain.checkpoint)
        #expect(idleReport.kind == .incremental && idle.entries == 0 && idle.isFinished && simulator.entryCount == 90)
    }
}
