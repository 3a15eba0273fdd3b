@testable import CallDirDevice
@testable import CallDirPatch
@testable import CallDirReader
import CallDirSimulator
import Testing
import TestSupport

/// Issue 43's device residue, each window on v1 (2,000 blocking and 500 identification entries)
/// with `CallKitSimulator` as the judge: never finished with the list missing, no restart after
/// a late confirmation or a kill between commit and clearing, error 7 waited out, the request
/// size halved after every expiry and grown back after successes.
@Suite("Reload coordinator: issue 43's residue", .serialized, .tags(.endToEnd), .skippedInFastLoop)
struct ReloadResidueTests {
    typealias Rig = ReloadCoordinatorTests.Rig
    typealias AppKilled = ReloadCoordinatorTests.AppKilled

    static func entriesFed(_ rig: Rig, since from: Int = 0) -> Int { ReloadResumeTests.entriesFed(rig, since: from) }

    @Test("an expired completion on the request that finishes the load, its handler not run before loadAll ends: never committed, the load starts over and finishes with the list held")
    func expiredCompletionOnTheLastRequest() async throws {
        let rig = try Rig(requestSize: 700)  // 2,500 entries: 4 requests
        defer { rig.remove() }
        let coordinator = rig.coordinator()
        try await coordinator.install(rig.lists[0].path)
        rig.phone.fates = [.succeeds, .succeeds, .succeeds, .expiresLate]
        let finished = try await coordinator.loadAll()
        let held = rig.phone.simulator.entryCount
        #expect(finished.isFinished && DeviceState(rig.phone.simulator) == rig.lists[0].expected,
                "loadAll reported finished with \(held) of \(rig.lists[0].expected.count) entries held")
        #expect(rig.phone.simulator.history.count == 8, "the unconfirmed request never built on: a complete load again")
        rig.phone.deliverLateCompletion()  // the stale expiry lands: the next loadAll starts over, safely
        try await coordinator.loadAll()
        #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected)
    }

    @Test("an expired completion on the last request whose handler runs while the app waits: the load starts over and finishes with the list held")
    func expiredCompletionSeenWhileWaiting() async throws {
        let rig = try Rig(requestSize: 700)
        defer { rig.remove() }
        rig.phone.lateCompletionsLandAtNextCall = true
        let coordinator = rig.coordinator()
        try await coordinator.install(rig.lists[0].path)
        rig.phone.fates = [.succeeds, .succeeds, .succeeds, .expiresLate]
        let finished = try await coordinator.loadAll()
        let held = rig.phone.simulator.entryCount
        #expect(finished.isFinished && DeviceState(rig.phone.simulator) == rig.lists[0].expected,
                "loadAll reported finished with \(held) of \(rig.lists[0].expected.count) entries held")
    }

    @Test("the app killed between its commit and clearing pending, at every launch: each relaunch clears the committed request's record and goes on (5 requests, each entry fed once)")
    func killedBetweenCommitAndClearing() async throws {
        let rig = try Rig(requestSize: 500)  // 2,500 entries: 5 requests
        defer { rig.remove() }
        try await rig.coordinator().install(rig.lists[0].path)
        var finished = false
        for _ in 0..<12 where !finished {
            let app = rig.coordinator()
            await app.setStepHook { if $0 == .afterCommit { throw AppKilled() } }
            do {
                finished = try await app.loadAll().isFinished
            } catch is AppKilled {}
        }
        let requests = rig.phone.simulator.history.count
        #expect(finished, "never finished: \(requests) requests, \(rig.phone.simulator.entryCount) entries held")
        #expect(requests == 5 && Self.entriesFed(rig) == rig.lists[0].expected.count, "\(requests) requests, \(Self.entriesFed(rig)) entries fed")
        #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected)
    }

    @Test("the app killed between its commit and clearing pending, then a system-run request before the relaunch: it resumes from the committed request, and the relaunch adopts it (each entry fed once)")
    func killedBetweenCommitAndClearingThenSystemRequest() async throws {
        let rig = try Rig(requestSize: 500)
        defer { rig.remove() }
        try await rig.coordinator().install(rig.lists[0].path)
        let app = rig.coordinator()
        await app.setStepHook { if $0 == .afterCommit { throw AppKilled() } }
        await #expect(throws: AppKilled.self) { try await app.loadAll() }
        rig.phone.runExtension(.succeeds)  // nobody in the app sees it
        try await rig.coordinator().loadAll()
        #expect(Self.entriesFed(rig) == rig.lists[0].expected.count, "\(Self.entriesFed(rig)) entries fed for \(rig.lists[0].expected.count)")
        #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected)
    }

    @Test("CallKit answers the app before the extension's completion handler confirms, at every request: the multi-request load finishes in 5 requests, each entry fed once")
    func lateConfirmations() async throws {
        let rig = try Rig(requestSize: 500)
        defer { rig.remove() }
        rig.phone.lateCompletionsLandAtNextCall = true
        let coordinator = rig.coordinator(maxRequests: 20)
        try await coordinator.install(rig.lists[0].path)
        rig.phone.fates = Array(repeating: .confirmsLate, count: 20)
        let outcome = await Task { try await coordinator.loadAll() }.result
        let requests = rig.phone.simulator.history.count
        #expect((try? outcome.get())?.isFinished == true, "\(outcome) after \(requests) requests")
        #expect(requests == 5 && Self.entriesFed(rig) == rig.lists[0].expected.count, "\(requests) requests, \(Self.entriesFed(rig)) entries fed")
        #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected)
    }

    @Test("the confirmation comes after loadAll gave up waiting for it: nothing built on the request meanwhile, and the next loadAll adopts it (5 requests, each entry fed once)")
    func confirmationAfterGivingUp() async throws {
        let rig = try Rig(requestSize: 500)
        defer { rig.remove() }
        let impatient = rig.coordinator(maxConsecutiveFailures: 1)
        try await impatient.install(rig.lists[0].path)
        rig.phone.fates = [.confirmsLate]
        await #expect(throws: ReloadError(reason: .unconfirmed, requests: 1)) { try await impatient.loadAll() }
        #expect(LoadRecord.decode(try rig.folder.readCommitted())?.checkpoint == nil, "not committed unconfirmed")
        rig.phone.deliverLateCompletion()
        #expect(try await rig.coordinator().loadAll().isFinished)
        let requests = rig.phone.simulator.history.count
        #expect(requests == 5 && Self.entriesFed(rig) == rig.lists[0].expected.count, "\(requests) requests, \(Self.entriesFed(rig)) entries fed")
        #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected)
    }

    @Test("error 7 from a 4.5 s system request: loadAll waits 1, 2, 4 s, adopts the request's confirmed work and finishes (nothing sent twice)")
    func longSystemRequest() async throws {
        let rig = try Rig(requestSize: 500)
        defer { rig.remove() }
        let coordinator = rig.coordinator(maxConsecutiveFailures: 3)
        try await coordinator.install(rig.lists[0].path)
        rig.phone.fates = [.succeeds, .otherLoad(seconds: 4.5)]
        let outcome = await Task { try await coordinator.loadAll() }.result
        #expect((try? outcome.get())?.isFinished == true, "\(outcome), waits \(rig.phone.pauses)")
        #expect(rig.phone.pauses == [1, 2, 4])
        #expect(Self.entriesFed(rig) == rig.lists[0].expected.count, "the system request's 500 entries kept: \(Self.entriesFed(rig)) fed")
        #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected)
    }

    @Test("a slow phone: requests above 250 entries expire and CallKit reports an error; the size halves (800, 400, 200) and the load finishes in the first launch")
    func expiryReportedAsError() async throws {
        let rig = try Rig(requestSize: 5_000)
        defer { rig.remove() }
        func app() -> ReloadCoordinator { rig.coordinator(maxConsecutiveFailures: 3, requestSize: 800, minimumRequestSize: 100) }
        try await app().install(rig.lists[0].path)
        rig.phone.expiresAbove = (250, .unknown(0))
        var launches = 0
        var finished = false
        while !finished, launches < 10 {
            launches += 1
            finished = (try? await app().loadAll())?.isFinished == true
        }
        let history = rig.phone.simulator.history
        #expect(finished && launches == 1, "\(launches) launches, \(history.filter { !$0.succeeded }.count) failed requests, \(rig.phone.simulator.entryCount) entries held")
        #expect(history.filter(\.succeeded).allSatisfy { $0.adds == 200 || $0 == history.last }, "\(history.map(\.adds))")
        #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected)
    }

    @Test("the size grows back after successes: 200 after two expiries, then 400 and 800 after 4 requests each in the next load (not 200 for good)")
    func requestSizeGrowsBack() async throws {
        let rig = try Rig(requestSize: 5_000)
        defer { rig.remove() }
        func app() -> ReloadCoordinator { rig.coordinator(requestSize: 800, minimumRequestSize: 100) }
        try await app().install(rig.lists[0].path)
        rig.phone.fates = [.expires, .expires]  // 800, then 400 expire
        try await app().loadAll()
        #expect(rig.phone.simulator.history.filter(\.succeeded).allSatisfy { $0.adds <= 200 })
        try await app().install(rig.lists[2].path)  // 3,000 entries: a complete load
        let before = rig.phone.simulator.history.count
        try await app().loadAll()
        let adds = rig.phone.simulator.history.dropFirst(before).map(\.adds)
        #expect(adds == [200, 200, 200, 200, 400, 400, 400, 400, 600], "\(adds)")
        #expect(DeviceState(rig.phone.simulator) == rig.lists[2].expected)
    }
}
