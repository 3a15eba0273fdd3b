@testable import CallDirDevice
@testable import CallDirPatch
@testable import CallDirReader
import Foundation
import Testing
import TestSupport

/// The app's half (installer and reload coordinator) against a simulated phone with failures
/// injected at every step: each run ends with the device holding exactly the index's entries,
/// or with a clear error and the old index and store intact.
@Suite("Reload coordinator and installer", .serialized, .tags(.endToEnd), .skippedInFastLoop)
struct ReloadCoordinatorTests {
    /// A phone with an App Group folder, and three lists: v1, v2 (v1 with churn and relabels:
    /// an update), v3 (another list: a complete load).
    struct Rig {
        let scratch: TempFolder
        let folder: SharedFolder
        let phone: SimulatedPhone
        let lists: [(path: String, expected: DeviceState)]

        init(requestSize: Int = 700) throws {
            let scratch = TempFolder()
            self.scratch = scratch
            folder = Self.makeSharedFolder(scratch)
            phone = SimulatedPhone(folder: folder, requestSize: requestSize)
            var v1 = DeviceState(), v2 = DeviceState(), v3 = DeviceState()
            v1.blocking = Array(33_100_000_000...33_100_001_999)
            for n in Int64(33_200_000_000)...33_200_000_499 { v1.identification[n] = n % 3 == 0 ? "Bank" : "Spam" }
            v2.blocking = v1.blocking.filter { $0 % 50 != 0 } + Array(33_100_005_000...33_100_005_099)
            v2.identification = v1.identification
            for n in Int64(33_200_000_000)...33_200_000_499 where n % 7 == 0 { v2.identification[n] = "Scam" }  // relabelled
            v3.blocking = Array(33_400_000_000...33_400_002_999)
            lists = try [v1, v2, v3].enumerated().map { i, state in
                let name = "v\(i + 1).calldir"
                let index = try buildIndex(scratch, name, block: state.blocking.map(String.init),
                                             identify: state.identification.map { "\($0.key),\($0.value)" })
                #expect(index.metadata.deviceEntries == Int64(state.count))
                return (scratch.file(name), state)
            }
        }

        func remove() {
            Self.removeSharedFolder(folder)
            scratch.remove()
        }

        /// An App Group folder on tmpfs when there is one: every record is fsynced, and a
        /// shared disk makes each fsync cost milliseconds.
        static func makeSharedFolder(_ scratch: TempFolder) -> SharedFolder {
            var template = Array((access("/dev/shm", W_OK) == 0 ? "/dev/shm" : scratch.path).utf8CString.dropLast())
            template += Array("/calldir-group-XXXXXX".utf8CString)
            return SharedFolder(path: template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) })
        }

        static func removeSharedFolder(_ folder: SharedFolder) {
            for name in Syscalls.folderEntries(folder.path) { unlink(folder.path + "/" + name) }
            rmdir(folder.path)
        }

        func coordinator(maxConsecutiveFailures: Int = 4, maxRequests: Int = 10_000, requestSize: Int = DeviceLoader.defaultRequestSize,
                         minimumRequestSize: Int = 10_000) -> ReloadCoordinator {
            ReloadCoordinator(folder: folder, platform: phone, maxConsecutiveFailures: maxConsecutiveFailures, maxRequests: maxRequests,
                              requestSize: requestSize, minimumRequestSize: minimumRequestSize)
        }

        var indexBytes: [UInt8]? { try? folder.read(folder.indexPath, limit: 1 << 26) }
    }

    struct AppKilled: Error {}

    @Test("v1 installed and loaded, then v2 (an update: only changes) and v3 (a complete load), every request succeeding")
    func happyCycle() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        let coordinator = rig.coordinator()
        let first = try await coordinator.install(rig.lists[0].path)
        #expect(!first.keptPrevious)
        let loaded = try await coordinator.loadAll()
        #expect(loaded.isFinished && DeviceState(rig.phone.simulator) == rig.lists[0].expected)
        let second = try await coordinator.install(rig.lists[1].path)
        #expect(second.keptPrevious && rig.folder.exists(rig.folder.previousIndexPath))
        let before = rig.phone.simulator.history.count
        try await coordinator.loadAll()
        #expect(DeviceState(rig.phone.simulator) == rig.lists[1].expected)
        #expect(rig.phone.simulator.history.dropFirst(before).allSatisfy { $0.kind == .incremental }, "v1 -> v2 is an update")
        #expect(!rig.folder.exists(rig.folder.previousIndexPath), "the previous index goes once the update finished")
        try await coordinator.install(rig.lists[2].path)
        let third = rig.phone.simulator.history.count
        try await coordinator.loadAll()
        #expect(DeviceState(rig.phone.simulator) == rig.lists[2].expected)
        #expect(rig.phone.simulator.history[third].kind == .complete, "v2 -> v3 changes more than v3 holds: a complete load")
        #expect(rig.phone.openBackgroundTasks == 0 && rig.phone.maxInFlight == 1)
    }

    @Test("the whole cycle v1 -> v2 -> v3 with failures injected at every step (reload errors, killed extension, expired completions also reported as errors, late confirmations, system-run requests also answering error 7 for seconds, the app killed between steps)", arguments: 0..<12)
    func cycleWithFailures(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: 0xC0_0D &+ seed &* 7_717)
        let rig = try Rig(requestSize: Int.random(in: 300...1_500, using: &rng))
        defer { rig.remove() }
        for (path, expected) in rig.lists {
            try await coordinator(rig).install(path)
            try await Self.loadWithFailures(rig, expected: expected, rng: &rng)
        }
    }

    @Test("the app cycle through a delta: v1 loaded, a delta to v2 patched on the phone (installDelta), installed and loaded as an update, then v3 in full; failures at every step: disk full during the patch and the install, the app killed, a delta for another base, a damaged delta, reload errors, killed extensions", .enabled(if: faultInjectionCompiled, Comment(rawValue: faultInjectionSkipReason)), arguments: 0..<4)
    func deltaCycle(seed: UInt64) async throws {
#if DEBUG
        var rng = SeededGenerator(seed: 0xDE17A &+ seed &* 104_723)
        let rig = try Rig(requestSize: Int.random(in: 300...1_500, using: &rng))
        defer { rig.remove() }
        try await coordinator(rig).install(rig.lists[0].path)
        try await Self.loadWithFailures(rig, expected: rig.lists[0].expected, rng: &rng)
        // The server publishes a delta v1 -> v2 (`calldir diff`); the phone patches its index
        // with it in the App Group folder (`installDelta`, CallDirPatch).
        let delta = rig.scratch.file("v1-v2.delta")
        _ = try Differ.diff(old: CallDirIndex(path: rig.lists[0].path), new: CallDirIndex(path: rig.lists[1].path),
                            output: delta, temporaryFolder: rig.scratch.path)
        let deltaFile = try DeltaFile(path: delta)
        let expected = IndexInstaller.Expectation(checksum: deltaFile.newChecksum, byteCount: deltaFile.newSize)
        let v1Bytes = rig.indexBytes
        let folderBefore = Set(Syscalls.folderEntries(rig.folder.path))
        func untouched(_ what: String) {
            #expect(rig.indexBytes == v1Bytes, "\(what): the index is still v1")
            #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected, "\(what): the store still holds v1")
            #expect(Set(Syscalls.folderEntries(rig.folder.path)) == folderBefore, "\(what): nothing left in the folder")
        }
        // Disk full while the patch writes its result: refused, v1 and its store intact.
        let fault = Syscalls.inject(.write, errno: ENOSPC, pathContaining: rig.folder.path + "/.incoming")
        await #expect(throws: CallDirError.self) { try await coordinator(rig).installDelta(delta, expecting: expected) }
        Syscalls.removeFault(fault)
        untouched("disk full during the patch")
        // The app killed as it starts the install.
        let killed = rig.coordinator()
        await killed.setStepHook { if $0 == .beforeInstall { throw AppKilled() } }
        await #expect(throws: AppKilled.self) { try await killed.installDelta(delta, expecting: expected) }
        untouched("app killed before the install")
        // A delta for another base (v2 -> v3 applied to v1): refused as a mismatch.
        let other = rig.scratch.file("v2-v3.delta")
        _ = try Differ.diff(old: CallDirIndex(path: rig.lists[1].path), new: CallDirIndex(path: rig.lists[2].path),
                            output: other, temporaryFolder: rig.scratch.path)
        let mismatch = await #expect(throws: CallDirError.self) { try await coordinator(rig).installDelta(other) }
        #expect(mismatch?.code == .deltaMismatch, "\(String(describing: mismatch))")
        untouched("a delta for another base")
        // A damaged delta: refused by its checksums.
        var damaged = try #require(try rig.folder.read(delta, limit: 1 << 26))
        damaged[damaged.count / 2] ^= 0x10
        let damagedPath = rig.scratch.file("damaged.delta")
        // Through the App Group folder to a file outside it: the temporary goes beside the file.
        try rig.folder.writeAtomically(damaged, to: damagedPath)
        await #expect(throws: CallDirError.self) { try await coordinator(rig).installDelta(damagedPath, expecting: expected) }
        untouched("a damaged delta")
        let installed = try await coordinator(rig).installDelta(delta, expecting: expected)
        #expect(installed.keptPrevious, "the device held v1 completely: an update follows")
        #expect(rig.indexBytes == (try fileContents(rig.lists[1].path)), "patched on the phone: v2 byte for byte")
        let before = rig.phone.simulator.history.count
        try await Self.loadWithFailures(rig, expected: rig.lists[1].expected, rng: &rng)
        if rig.phone.simulator.history.dropFirst(before).allSatisfy(\.succeeded) {
            #expect(rig.phone.simulator.history.dropFirst(before).allSatisfy { $0.kind == .incremental }, "without failures, only changes")
        }
        // Disk full while the full v3 is copied in: refused, v2 and its store intact.
        let v2Bytes = rig.indexBytes
        let full = Syscalls.inject(.write, errno: ENOSPC, pathContaining: rig.folder.path + "/.incoming")
        await #expect(throws: CallDirError.self) { try await coordinator(rig).install(rig.lists[2].path) }
        Syscalls.removeFault(full)
        #expect(rig.indexBytes == v2Bytes && DeviceState(rig.phone.simulator) == rig.lists[1].expected)
        try await coordinator(rig).install(rig.lists[2].path)
        try await Self.loadWithFailures(rig, expected: rig.lists[2].expected, rng: &rng)
#endif
    }

    func coordinator(_ rig: Rig) -> ReloadCoordinator { rig.coordinator() }

    /// `loadAll` until the app believes the device holds the index, with random fates per
    /// request, the app killed at random steps (a new coordinator is the relaunched app) and
    /// system-run requests between loads; then the device must hold exactly `expected`.
    static func loadWithFailures(_ rig: Rig, expected: DeviceState, rng: inout SeededGenerator) async throws {
        var coordinator = rig.coordinator()
        var finished = false
        rig.phone.lateCompletionsLandAtNextCall = true  // confirmations after CallKit's answer land a moment later
        for _ in 0..<200 where !finished {
            rig.phone.fates = (0..<Int.random(in: 0...6, using: &rng)).map { _ in SimulatedPhone.randomFate(&rng, entries: 1_500, late: true) }
            let killAt: (ReloadStep, Int)? = Int.random(in: 0..<3, using: &rng) == 0
                ? ([ReloadStep.beforeReload, .afterFailure, .afterSuccess, .afterCommit].randomElement(using: &rng)!, Int.random(in: 0...3, using: &rng))
                : nil
            let counter = StepCounter()
            await coordinator.setStepHook { step in
                if let killAt, step == killAt.0, counter.next() == killAt.1 { throw AppKilled() }
            }
            do {
                try await coordinator.loadAll()
                finished = true
            } catch is AppKilled {
                coordinator = rig.coordinator()
            } catch let error as ReloadError {
                #expect(error.reason != .disabled)  // a give-up after consecutive failures: try again later
            }
            // The system runs the extension on its own now and then, failing or not.
            if Int.random(in: 0..<4, using: &rng) == 0 {
                // Not `.refused`: a system-run request that fails before the extension's first
                // line leaves no trace anywhere (docs/CALLKIT.md, residual risks).
                var fate = SimulatedPhone.randomFate(&rng, entries: 1_500, late: true)
                if case .refused = fate { fate = .killedWhileFeeding(after: 0) }
                rig.phone.runExtension(fate)
                finished = false  // the app does not know; its next loadAll must restore the store
            }
        }
        #expect(finished)
        #expect(DeviceState(rig.phone.simulator) == expected)
        #expect(rig.phone.maxInFlight == 1 && rig.phone.openBackgroundTasks == 0)
    }

    @Test("a system-run request that fails after a finished load leaves the under-way record: the next loadAll starts over and restores the store")
    func systemRunFailureAfterFinish() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        let coordinator = rig.coordinator()
        try await coordinator.install(rig.lists[0].path)
        try await coordinator.loadAll()
        rig.phone.runExtension(.killedWhileFeeding(after: 10))
        #expect(rig.phone.simulator.entryCount == 0)
        #expect(LoadCheckpoint.pendingRecord(try rig.folder.readPending()) != .none, "a record the app did not commit")
        try await coordinator.loadAll()
        #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected)
    }

    @Test("persistent reload errors: a clear error after the tolerated failures; disabled and missing extensions stop at once")
    func persistentErrors() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        let coordinator = rig.coordinator(maxConsecutiveFailures: 3)
        try await coordinator.install(rig.lists[0].path)
        rig.phone.fates = Array(repeating: .refused(.loadingInterrupted), count: 3)
        await #expect(throws: ReloadError(reason: .callKit(.loadingInterrupted), requests: 3)) { try await coordinator.loadAll() }
        rig.phone.fates = [.expires, .expires, .expires]
        await #expect(throws: ReloadError(reason: .noCheckpoint, requests: 3)) { try await coordinator.loadAll() }
        #expect(LoadRecord.decode(try rig.folder.readCommitted())?.checkpoint == nil, "an expired request is never committed")
        rig.phone.fates = [.refused(.extensionDisabled)]
        await #expect(throws: ReloadError(reason: .callKit(.extensionDisabled), requests: 1)) { try await coordinator.loadAll() }
        rig.phone.enabled = false
        await #expect(throws: ReloadError(reason: .disabled, requests: 0)) { try await coordinator.loadAll() }
        rig.phone.enabled = true
        try await coordinator.loadAll()
        #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected && rig.phone.openBackgroundTasks == 0)
    }

    @Test("two loads at once run one after the other, never interleaved")
    func oneLoadAtATime() async throws {
        let rig = try Rig(requestSize: 300)
        defer { rig.remove() }
        let coordinator = rig.coordinator()
        try await coordinator.install(rig.lists[0].path)
        async let a = coordinator.loadAll()
        async let b = coordinator.loadAll()
        let (first, second) = try await (a, b)
        #expect(first == second && first.isFinished)
        #expect(rig.phone.maxInFlight == 1 && DeviceState(rig.phone.simulator) == rig.lists[0].expected)
    }

    @Test("disk full during install, at the copy or at keeping the previous index: a clear error, the index and the store untouched", .enabled(if: faultInjectionCompiled, Comment(rawValue: faultInjectionSkipReason)))
    func diskFullDuringInstall() async throws {
#if DEBUG
        let rig = try Rig()
        defer { rig.remove() }
        let coordinator = rig.coordinator()
        try await coordinator.install(rig.lists[0].path)
        try await coordinator.loadAll()
        let indexBefore = rig.indexBytes
        let committedBefore = try rig.folder.readCommitted()
        for target in ["incoming.calldir", "previous.calldir"] {
            let fault = Syscalls.inject(.write, errno: ENOSPC, pathContaining: rig.folder.path + "/." + target)
            defer { Syscalls.removeFault(fault) }
            do {
                try await coordinator.install(rig.lists[1].path)
                Issue.record("install succeeded with the disk full at \(target)")
            } catch let error as CallDirError {
                #expect(error.code == .io && error.message.contains("No space left on device"), "\(error)")
            }
            #expect(Syscalls.timesFired(fault) > 0)
            let committedAfter = try rig.folder.readCommitted()
            #expect(rig.indexBytes == indexBefore && committedAfter == committedBefore)
            #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected)
            #expect(!rig.scratch.path.isEmpty && Syscalls.folderEntries(rig.folder.path).allSatisfy { !$0.hasPrefix(".") },
                    "no temporary file left: \(Syscalls.folderEntries(rig.folder.path))")
        }
        // With space again, the install and the update go through.
        try await coordinator.install(rig.lists[1].path)
        try await coordinator.loadAll()
        #expect(DeviceState(rig.phone.simulator) == rig.lists[1].expected)
#endif
    }

    @Test("a damaged or unexpected candidate is refused before anything changes")
    func refusedCandidates() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        let coordinator = rig.coordinator()
        try await coordinator.install(rig.lists[0].path)
        try await coordinator.loadAll()
        let indexBefore = rig.indexBytes
        var damaged = try #require(try rig.folder.read(rig.lists[1].path, limit: 1 << 26))
        damaged[damaged.count / 2] ^= 0x40
        let damagedPath = rig.scratch.write("damaged.calldir", damaged)
        await #expect(throws: CallDirError.self) { try await coordinator.install(damagedPath) }
        let v2 = try CallDirIndex(path: rig.lists[1].path)
        do {
            try await coordinator.install(rig.lists[1].path, expecting: .init(checksum: v2.checksum &+ 1))
            Issue.record("an unexpected checksum was installed")
        } catch let error as CallDirError {
            #expect(error.code == .deltaMismatch && error.message.contains("checksum"))
        }
        #expect(rig.indexBytes == indexBefore && DeviceState(rig.phone.simulator) == rig.lists[0].expected)
        let installed = try await coordinator.install(rig.lists[1].path, expecting: .init(checksum: v2.checksum, byteCount: v2.file.count,
                                                                                          deviceEntries: v2.metadata.deviceEntries))
        #expect(installed.checksum == v2.checksum)
    }
}

/// Counts the hook's calls for one step kind across an async run.
final class StepCounter: @unchecked Sendable {
    private var count = -1
    func next() -> Int { count += 1; return count }
}
