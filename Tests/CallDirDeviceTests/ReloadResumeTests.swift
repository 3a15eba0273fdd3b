@testable import CallDirDevice
@testable import CallDirPatch
@testable import CallDirReader
import CallDirSimulator
import Testing
import TestSupport

/// A big list finishes (issue 36): a load goes forward by every request CallKit accepted, even
/// when the app never saw the outcome; error 7 waits instead of starting over; the request size
/// halves after a kill or an expiry and stays halved across launches; the first request before
/// any install completes empty; a missing App Group is a clear error.
@Suite("Reload coordinator: resuming, back-off, request size", .serialized, .tags(.endToEnd), .skippedInFastLoop)
struct ReloadResumeTests {
    typealias Rig = ReloadCoordinatorTests.Rig

    /// Entries CallKit was handed since request `from` of the simulator's history.
    static func entriesFed(_ rig: Rig, since from: Int = 0) -> Int {
        rig.phone.simulator.history.dropFirst(from).reduce(0) { $0 + $1.adds + $1.removes }
    }

    @Test("the app killed after each request succeeded, before it committed: every relaunch adopts the confirmed request, so the list is fed once")
    func relaunchAdoptsConfirmedRequest() async throws {
        let rig = try Rig(requestSize: 500)
        defer { rig.remove() }
        try await rig.coordinator().install(rig.lists[0].path)
        var launches = 0
        var finished = false
        while !finished, launches < 20 {
            launches += 1
            let app = rig.coordinator()
            await app.setStepHook { if $0 == .afterSuccess { throw ReloadCoordinatorTests.AppKilled() } }
            do {
                finished = try await app.loadAll().isFinished
            } catch is ReloadCoordinatorTests.AppKilled {
                continue
            }
        }
        #expect(finished && DeviceState(rig.phone.simulator) == rig.lists[0].expected)
        #expect(Self.entriesFed(rig) == rig.lists[0].expected.count, "each entry fed once, not once per launch")
    }

    @Test("a successful system-run request over a finished load (the user toggling the extension, a reboot) costs no re-send")
    func systemRunOverFinishedLoad() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        let coordinator = rig.coordinator()
        try await coordinator.install(rig.lists[0].path)
        try await coordinator.loadAll()
        rig.phone.runExtension(.succeeds)  // nobody in the app sees it
        let before = rig.phone.simulator.history.count
        try await coordinator.loadAll()
        #expect(Self.entriesFed(rig, since: before) == 0, "no entry sent again")
        #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected)
        #expect(try await coordinator.isLoadedCompletely())
    }

    @Test("a confirmed system-run request over the finished v1, then v2 installed: the record is adopted, and v2 is still loaded")
    func adoptedRecordOfThePreviousIndex() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        let coordinator = rig.coordinator()
        try await coordinator.install(rig.lists[0].path)
        try await coordinator.loadAll()
        rig.phone.runExtension(.succeeds)  // confirmed, about v1
        try await coordinator.install(rig.lists[1].path)
        try await coordinator.loadAll()
        #expect(DeviceState(rig.phone.simulator) == rig.lists[1].expected, "v2 on the device, not v1 taken as finished")
    }

    @Test("error 7 (another load under way) waits 1 s, then 2 s, keeps the progress and goes on")
    func currentlyLoadingBacksOff() async throws {
        let rig = try Rig(requestSize: 500)
        defer { rig.remove() }
        let coordinator = rig.coordinator()
        try await coordinator.install(rig.lists[0].path)
        rig.phone.fates = [.succeeds, .succeeds, .busy, .busy]
        try await coordinator.loadAll()
        #expect(rig.phone.pauses == [1, 2])
        #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected)
        #expect(Self.entriesFed(rig) == rig.lists[0].expected.count, "no start over after error 7")
    }

    @Test("the request size halves after a kill and after an expiry, a relaunched app keeps it, and it doubles back after 4 requests in a row")
    func requestSizeHalves() async throws {
        let rig = try Rig(requestSize: 5_000)  // the extension's own cap: above the app's size
        defer { rig.remove() }
        func app() -> ReloadCoordinator {
            ReloadCoordinator(folder: rig.folder, platform: rig.phone, maxConsecutiveFailures: 4, requestSize: 800, minimumRequestSize: 100)
        }
        try await app().install(rig.lists[0].path)
        rig.phone.fates = [.succeeds, .killedWhileFeeding(after: 10), .succeeds, .expires]
        let killed = app()
        await killed.setStepHook { step in if step == .beforeReload, rig.phone.fates.isEmpty { throw ReloadCoordinatorTests.AppKilled() } }
        await #expect(throws: ReloadCoordinatorTests.AppKilled.self) { try await killed.loadAll() }
        try await app().loadAll()  // relaunched
        let adds = rig.phone.simulator.history.filter(\.succeeded).map(\.adds)
        #expect(adds.prefix(2) == [800, 400], "\(adds): 800, killed, then 400")
        #expect(adds == [800, 400, 200, 200, 200, 200, 400, 400, 400, 400, 100],
                "\(adds): after the expiry 200, kept after the relaunch, then 400 and 800 after 4 requests each")
        #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected)
    }

    @Test("a cancelled loadAll (the background time ran out) stops after the request under way; the next one resumes there")
    func cancelledLoadResumes() async throws {
        let rig = try Rig(requestSize: 500)
        defer { rig.remove() }
        try await rig.coordinator().install(rig.lists[0].path)
        let expiring = rig.coordinator()
        await expiring.setStepHook { step in if step == .afterSuccess { withUnsafeCurrentTask { $0?.cancel() } } }
        // Its own task, as the app's: the expiration handler cancels that task.
        let stopped = await Task { try await expiring.loadAll() }.result
        #expect(throws: ReloadError(reason: .cancelled, requests: 1)) { try stopped.get() }
        #expect(rig.phone.openBackgroundTasks == 0, "the background task ended")
        try await rig.coordinator().loadAll()
        #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected)
        #expect(Self.entriesFed(rig) == rig.lists[0].expected.count)
    }

    @Test("before the first install the extension's request completes empty (no cancel), and the first load then works")
    func firstRequestWithoutIndex() async throws {
        let rig = try Rig()
        defer { rig.remove() }
        #expect(rig.phone.runExtension(.succeeds) == nil, "the system's first request succeeds")
        #expect(rig.phone.simulator.entryCount == 0 && rig.phone.simulator.history.last?.succeeded == true)
        let coordinator = rig.coordinator()
        try await coordinator.install(rig.lists[0].path)
        try await coordinator.loadAll()
        #expect(DeviceState(rig.phone.simulator) == rig.lists[0].expected)
    }

    @Test("a target without the App Group: a usage error naming the group and the fix, no crash")
    func missingAppGroup() throws {
        let error = #expect(throws: CallDirError.self) { try SharedFolder(appGroup: "group.com.example.calldir", containerPath: nil) }
        #expect(error?.code == .usage && error?.message.contains("group.com.example.calldir") == true && error?.message.contains("App Groups") == true)
        #expect(try SharedFolder(appGroup: "g", containerPath: "/x").path == "/x")
        #expect(CallDirectoryErrorCode(domain: CallDirectoryErrorCode.domain, code: 7) == .currentlyLoading)
        #expect(CallDirectoryErrorCode(domain: "NSCocoaErrorDomain", code: 7) == .unknown(7))
    }
}
