@testable import CallDirDevice
@testable import CallDirPatch
@testable import CallDirReader
import CallDirSimulator
import Testing
import TestSupport

/// Issue 36's loss windows, each as a fault kind: an expired completion or a system-run
/// request landing while the app reads, commits and clears the pending record, on a
/// 2-million-entry list (ranges, so cheap to feed). Whatever lands, a `loadAll` that returns
/// finished leaves the device holding the whole list.
@Suite("Reload coordinator: no loss window", .tags(.endToEnd), .skippedInFastLoop)  // the four windows run in parallel
struct ReloadLossWindowTests {
    enum Window: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// `reloadExtension` reported success, the app committed the fed checkpoint, and only
        /// then the completion handler learns `expired` (CallKit added nothing).
        case expiredCompletionAfterCommit
        /// The system runs the extension after the app committed, before pending is cleared.
        case systemRequestAfterCommit
        /// The system runs the extension after the app's request succeeded, before the app
        /// reads pending.
        case systemRequestAfterSuccess
        /// After the app committed a first (complete) request, a system-run request writes the
        /// very same checkpoint bytes, then the host fails it: an ABA the bytes cannot show.
        case identicalBytesAfterCommit
        var testDescription: String { rawValue }
    }

    /// 2,000,000 entries: 1.8M blocking in 18 ranges, 200k identified in 2 labelled ranges.
    struct BigList {
        static let width: Int64 = 100_000
        let scratch = TempFolder()
        let path: String
        let blocking: [ClosedRange<Int64>]
        let identification: [(range: ClosedRange<Int64>, label: String)]
        var entries: Int64 { Int64(blocking.count + identification.count) * Self.width }

        init() throws {
            func range(_ base: Int64, _ i: Int) -> ClosedRange<Int64> {
                let first = base + Int64(i) * 1_000_000
                return first...(first + Self.width - 1)
            }
            blocking = (0..<18).map { range(33_100_000_000, $0) }
            identification = ["Spam", "Scam"].enumerated().map { (range(33_600_000_000, $0), $1) }
            _ = try buildIndex(scratch, "big.calldir", block: blocking.map { "\($0.lowerBound)-\($0.upperBound)" },
                                 identify: identification.map { "\($0.range.lowerBound)-\($0.range.upperBound),\($0.label)" })
            path = scratch.file("big.calldir")
        }

        /// True when the device holds exactly the list: the counts match and every stored
        /// entry belongs to it (the simulator keeps each number once per kind).
        func isHeld(by device: CallKitSimulator) -> Bool {
            guard device.blockingCount == Int64(blocking.count) * Self.width,
                  device.identificationCount == Int64(identification.count) * Self.width else { return false }
            var held = true
            var r = 0
            device.forEachBlockingEntry { n in
                while r < blocking.count, blocking[r].upperBound < n { r += 1 }
                if r == blocking.count || !blocking[r].contains(n) { held = false }
            }
            r = 0
            device.forEachIdentificationEntry { n, label in
                while r < identification.count, identification[r].range.upperBound < n { r += 1 }
                if r == identification.count || !identification[r].range.contains(n) || identification[r].label != label { held = false }
            }
            return held
        }
    }

    /// Lands the window's fault at the steps of `loadAll` it belongs to. Even seeds aim at the
    /// request that finishes the load; odd ones at their first, second or third eligible step.
    final class FaultPlan: @unchecked Sendable {  // used from the coordinator's hook, one step at a time
        let window: Window
        let phone: SimulatedPhone
        let entries: Int64
        let aimAtLast: Bool
        var rng: SeededGenerator
        var budget: Int
        private(set) var landed = 0
        private var eligibleSteps = 0
        private let firstLanding: Int

        init(window: Window, phone: SimulatedPhone, entries: Int64, seed: UInt64) {
            self.window = window
            self.phone = phone
            self.entries = entries
            aimAtLast = seed % 2 == 0
            budget = 1  // each fault costs a complete reload (~0.5 s of a debug build): one shows the window
            rng = SeededGenerator(seed: 0x1055 &+ seed &* 48_271 &+ UInt64(Window.allCases.firstIndex(of: window)!) &* 7)
            firstLanding = Int.random(in: 1...3, using: &rng)
        }

        func at(_ step: ReloadStep) {
            switch (window, step) {
            case (.expiredCompletionAfterCommit, .beforeReload):
                if phone.fates.isEmpty, eligible(last: nextRequestFinishes) { phone.fates = [.expiresLate] }
            case (.expiredCompletionAfterCommit, .afterCommit):
                if phone.lateCompletion != nil { land { phone.deliverLateCompletion() } }
            case (.systemRequestAfterCommit, .afterCommit):
                if eligible(last: committed?.isFinished == true) { land { phone.runExtension(systemFate()) } }
            case (.systemRequestAfterSuccess, .afterSuccess):
                if eligible(last: pendingFinished) { land { phone.runExtension(systemFate()) } }
            case (.identicalBytesAfterCommit, .afterCommit):
                // Only a first request's checkpoint is what a system-run complete request writes.
                if let first = committed, first.entriesLoaded <= Int64(phone.requestSize), budget > 0 {
                    land { phone.runExtension(.hostFailsAfterFeeding) }
                }
            default: break
            }
        }

        private func eligible(last: Bool) -> Bool {
            guard budget > 0 else { return false }
            if aimAtLast { return last }
            eligibleSteps += 1
            return eligibleSteps == firstLanding
        }

        private func land(_ fault: () -> Void) {
            fault()
            budget -= 1
            landed += 1
        }

        /// A system-run request's fate: failing ones (which empty the store) weighed up.
        private func systemFate() -> SimulatedPhone.Fate {
            [.hostFailsAfterFeeding, .hostFailsAfterFeeding, .expires, .killedWhileFeeding(after: 5_000), .succeeds].randomElement(using: &rng)!
        }

        private var committed: LoadCheckpoint? {
            ((try? phone.folder.readCommitted()) ?? nil).flatMap { try? LoadCheckpoint(bytes: $0) }
        }

        private var pendingFinished: Bool {
            ((try? phone.folder.readPending()) ?? nil).flatMap { try? LoadCheckpoint(bytes: $0) }?.isFinished == true
        }

        private var nextRequestFinishes: Bool {
            guard let committed else { return entries <= Int64(phone.requestSize) }
            return entries - committed.entriesLoaded <= Int64(phone.requestSize)
        }
    }

    @Test("an expired completion or a system-run request in each window of the commit, on 6 seeds of a 2M-entry list: loadAll returns finished only with the whole list stored", arguments: Window.allCases)
    func window(_ window: Window) async throws {
        let list = try BigList()
        defer { list.scratch.remove() }
        for seed in UInt64(0)..<6 {
            let folder = ReloadCoordinatorTests.Rig.makeSharedFolder(list.scratch)
            defer { ReloadCoordinatorTests.Rig.removeSharedFolder(folder) }
            var rng = SeededGenerator(seed: 0x3600 &+ seed)
            let phone = SimulatedPhone(folder: folder, requestSize: Int.random(in: 400_000...900_000, using: &rng))
            let coordinator = ReloadCoordinator(folder: folder, platform: phone, maxConsecutiveFailures: 4)
            try await coordinator.install(list.path)
            let plan = FaultPlan(window: window, phone: phone, entries: list.entries, seed: seed)
            await coordinator.setStepHook { plan.at($0) }
            var finished = false
            for _ in 0..<20 where !finished {
                do {
                    try await coordinator.loadAll()
                    finished = true
                } catch is ReloadError {
                    continue  // gave up after consecutive failures: the app tries again later
                }
            }
            #expect(finished, "seed \(seed): never finished")
            #expect(plan.landed > 0, "seed \(seed): the fault never landed")
            #expect(list.isHeld(by: phone.simulator),
                    "seed \(seed): loadAll returned finished with \(phone.simulator.entryCount) of \(list.entries) entries stored (\(plan.landed) faults)")
        }
    }
}
