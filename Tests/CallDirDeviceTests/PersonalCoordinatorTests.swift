@testable import CallDirDevice
@testable import CallDirPatch
@testable import CallDirReader
import CallDirSimulator
import Testing
import TestSupport

/// The clock of the user's layer in a test: the app's and the extension's (allowances expire).
final class TestClock: @unchecked Sendable {  // tests drive it between the coordinator's steps
    var now: Int64 = 1_000
    var settings: PersonalSettings { try! PersonalSettings(region: 33) { [unowned self] in self.now } }
}

/// A phone whose app and extension apply the user's layer (`personal.txt`, `contacts.vcf`) from
/// the App Group folder: the app's real path, `ReloadCoordinator` and
/// `CallDirectoryExtensionRequest`, against `CallKitSimulator`.
struct PersonalRig {
    let scratch = TempFolder()
    let folder: SharedFolder
    let phone: SimulatedPhone
    let clock = TestClock()

    init(requestSize: Int) {
        folder = ReloadCoordinatorTests.Rig.makeSharedFolder(scratch)
        phone = SimulatedPhone(folder: folder, requestSize: requestSize)
        phone.personal = clock.settings
    }

    func coordinator() -> ReloadCoordinator {
        ReloadCoordinator(folder: folder, platform: phone, maxConsecutiveFailures: 4, personal: clock.settings)
    }

    func remove() {
        ReloadCoordinatorTests.Rig.removeSharedFolder(folder)
        scratch.remove()
    }

    /// The store of `index` alone, as a plain load gives it.
    func listStore(_ index: CallDirIndex) throws -> DeviceState {
        let plain = CallKitSimulator()
        try loadFully(DeviceLoader(index: index), into: plain)
        return DeviceState(plain)
    }

    /// Entries handed to CallKit (added or removed) since request `from`.
    func entriesSent(since from: Int) -> Int {
        phone.simulator.history.dropFirst(from).reduce(0) { $0 + $1.adds + $1.removes }
    }

    func requests(since from: Int) -> ArraySlice<CallKitSimulator.RequestReport> { phone.simulator.history.dropFirst(from) }
}

/// Entries two stores differ by, as CallKit counts them: a relabel is a removal and an addition.
func entriesBetween(_ a: DeviceState, _ b: DeviceState) -> Int {
    let blocking = Set(a.blocking).symmetricDifference(Set(b.blocking)).count
    var identification = 0
    for n in Set(a.identification.keys).union(b.identification.keys) {
        switch (a.identification[n], b.identification[n]) {
        case let (x?, y?): identification += x == y ? 0 : 2
        case (nil, nil): break
        default: identification += 1
        }
    }
    return blocking + identification
}

@Suite("Personal layer through the app's coordinator", .serialized)
struct PersonalCoordinatorTests {
    static let block = ["33162000000-33162000099", "33162000500", "33612345678"]
    static let identify = ["33162000000-33162000099,Telemarketing", "33162000200,Bank"]

    /// The small French list compiled and installed; the app's coordinator.
    static func installList(_ rig: PersonalRig) async throws -> (CallDirIndex, ReloadCoordinator) {
        let index = try buildIndex(rig.scratch, "fr.calldir", block: block, identify: identify)
        let coordinator = rig.coordinator()
        try await coordinator.install(index.path)
        return (index, coordinator)
    }

    @Test("a contact inside a blocked range, through ReloadCoordinator and the extension: one incremental request of 2 entries; it rings and nothing else changed")
    func contactThroughCoordinator() async throws {
        let rig = PersonalRig(requestSize: 1_000)
        defer { rig.remove() }
        let (index, coordinator) = try await Self.installList(rig)
        try await coordinator.loadAll()
        let list = try rig.listStore(index)
        #expect(DeviceState(rig.phone.simulator) == list)
        // The app read its contacts (here a vCard; on a phone `ContactStoreSource`): the
        // dentist, written nationally, is inside the blocked and labelled range.
        let vcf = rig.scratch.write("contacts.vcf", "BEGIN:VCARD\nVERSION:3.0\nFN:Dentist\nTEL:01 62 00 00 42\nEND:VCARD\n")
        #expect(try await coordinator.publishContacts(coordinator.contactNumbers(from: VCardContacts(path: vcf))))
        #expect(try await !coordinator.isLoadedCompletely(), "the device does not hold the new layer yet")
        let before = rig.phone.simulator.history.count
        try await coordinator.loadAll()
        #expect(rig.requests(since: before).map(\.kind) == [.incremental] && rig.entriesSent(since: before) == 2)
        var expected = list
        expected.blocking.removeAll { $0 == 33_162_000_042 }
        expected.identification[33_162_000_042] = nil
        #expect(DeviceState(rig.phone.simulator) == expected)
        #expect(try await coordinator.isLoadedCompletely())
        // The same contacts again: nothing to send.
        #expect(try await !coordinator.publishContacts(coordinator.contactNumbers(from: VCardContacts(path: vcf))))
    }

    @Test("a list delta with a layer present is an update carrying only the list's changes the layer does not hide")
    func listDeltaWithLayer() async throws {
        let rig = PersonalRig(requestSize: 1_000)
        defer { rig.remove() }
        let v1 = try buildIndex(rig.scratch, "v1.calldir", block: Self.block, identify: Self.identify)
        // v2: the range grows by 20, the bank is relabelled, one exact number goes.
        let v2 = try buildIndex(rig.scratch, "v2.calldir", block: ["33162000000-33162000119", "33612345678"],
                                  identify: ["33162000000-33162000099,Telemarketing", "33162000200,Fraud"])
        let layer = PersonalLayer(allowed: [.init(NumberRange(first: 33_162_000_110, last: 33_162_000_112))],
                                  blocked: [NumberRange(first: 33_162_000_115, last: 33_162_000_119)],
                                  labels: [.init(NumberRange(first: 33_162_000_200, last: 33_162_000_200), text: "My bank")])
        try rig.folder.writePersonalLayer(layer)
        let coordinator = rig.coordinator()
        try await coordinator.install(v1.path)
        try await coordinator.loadAll()
        let held = expectedStore(list: try rig.listStore(v1), layer: layer, contacts: [], now: rig.clock.now)
        #expect(DeviceState(rig.phone.simulator) == held)
        #expect(try await coordinator.install(v2.path).keptPrevious)
        let before = rig.phone.simulator.history.count
        try await coordinator.loadAll()
        let wanted = expectedStore(list: try rig.listStore(v2), layer: layer, contacts: [], now: rig.clock.now)
        #expect(DeviceState(rig.phone.simulator) == wanted)
        #expect(rig.requests(since: before).allSatisfy { $0.kind == .incremental }, "an update, not a complete load")
        // 20 numbers more, 3 of them allowed, 5 already blocked by the user; the relabel under
        // the user's label and the removed number: 12 + 1 = 13.
        #expect(rig.entriesSent(since: before) == entriesBetween(held, wanted) && entriesBetween(held, wanted) == 13)
    }

    @Test("a change of the layer larger than a request (tiny cap): split across incremental requests, resumed after the app is killed, each entry sent once")
    func splitChange() async throws {
        let rig = PersonalRig(requestSize: 7)
        defer { rig.remove() }
        // A list larger than the change (else a complete load costs less, and is what is sent).
        let index = try buildIndex(rig.scratch, "fr.calldir", block: Self.block + ["33170000000-33170001999"], identify: Self.identify)
        try await rig.coordinator().install(index.path)
        try await rig.coordinator().loadAll()
        let list = try rig.listStore(index)
        // "Allow +33 1 62 00 00 ##" and a label of 30 numbers: 100 + 100 + 30 changes.
        let layer = PersonalLayer(allowed: [.init(NumberRange(first: 33_162_000_000, last: 33_162_000_099))],
                                  labels: [.init(NumberRange(first: 33_162_000_300, last: 33_162_000_329), text: "Mine")])
        try rig.folder.writePersonalLayer(layer)
        let wanted = expectedStore(list: list, layer: layer, contacts: [], now: rig.clock.now)
        #expect(entriesBetween(list, wanted) == 230)
        let before = rig.phone.simulator.history.count
        var launches = 0
        var finished = false
        while !finished, launches < 100 {
            launches += 1
            let app = rig.coordinator()
            let counter = StepCounter()
            await app.setStepHook { step in  // killed after its third request succeeded, before it commits
                if step == .afterSuccess, counter.next() == 2 { throw ReloadCoordinatorTests.AppKilled() }
            }
            do {
                finished = try await app.loadAll().isFinished
            } catch is ReloadCoordinatorTests.AppKilled {}
        }
        #expect(finished && launches > 10, "\(launches) launches")
        #expect(DeviceState(rig.phone.simulator) == wanted)
        let requests = rig.requests(since: before)
        #expect(requests.allSatisfy { $0.kind == .incremental && $0.succeeded && $0.adds + $0.removes <= 7 })
        #expect(rig.entriesSent(since: before) == 230, "each changed entry sent once across \(requests.count) requests")
    }

    @Test("the layer edited while a complete load is under way: the load never mixes two layers (every request accepted, the store is the new layer's)")
    func editDuringLoad() async throws {
        let rig = PersonalRig(requestSize: 20)
        defer { rig.remove() }
        let (index, coordinator) = try await Self.installList(rig)
        let first = PersonalLayer(labels: [.init(NumberRange(first: 33_162_000_600, last: 33_162_000_600), text: "Shop")])
        let second = PersonalLayer(allowed: [.init(NumberRange(first: 33_162_000_010, last: 33_162_000_019))],
                                   blocked: [NumberRange(first: 33_162_000_400, last: 33_162_000_449)])
        try rig.folder.writePersonalLayer(first)
        let counter = StepCounter()
        let folder = rig.folder
        await coordinator.setStepHook { step in  // the user edits after the second request
            if step == .afterCommit, counter.next() == 1 { try folder.writePersonalLayer(second) }
        }
        try await coordinator.loadAll()
        // A load resumed with the new layer over entries fed with the old one would leave
        // 010-019 blocked, or make the next change add 400-449 twice (CallKit's error 4).
        let history = rig.phone.simulator.history
        #expect(history.allSatisfy { $0.succeeded }, "\(history.compactMap { $0.failure })")
        let wanted = expectedStore(list: try rig.listStore(index), layer: second, contacts: [], now: rig.clock.now)
        #expect(DeviceState(rig.phone.simulator) == wanted)
    }

    @Test("an allowance for 2 hours: blocked again when it expires, by one incremental request")
    func expiry() async throws {
        let rig = PersonalRig(requestSize: 1_000)
        defer { rig.remove() }
        let (index, coordinator) = try await Self.installList(rig)
        let layer = PersonalLayer(allowed: [.init(NumberRange(first: 33_162_000_500, last: 33_162_000_500), expiry: rig.clock.now + 7_200)])
        try rig.folder.writePersonalLayer(layer)
        try await coordinator.loadAll()
        #expect(!rig.phone.simulator.isBlocking(33_162_000_500))
        #expect(try await coordinator.nextExpiry() == rig.clock.now + 7_200)
        rig.clock.now += 7_200
        #expect(try await !coordinator.isLoadedCompletely())
        let before = rig.phone.simulator.history.count
        try await coordinator.loadAll()
        #expect(rig.phone.simulator.isBlocking(33_162_000_500) && rig.entriesSent(since: before) == 1)
        #expect(try await coordinator.nextExpiry() == nil)
        #expect(DeviceState(rig.phone.simulator) == (try rig.listStore(index)))
        #expect(Syscalls.folderEntries(rig.folder.path).filter { $0.hasPrefix("overlay-") }.isEmpty, "no held overlay left once the list alone is held")
    }

    @Test("a held overlay that is missing or not the one its name says: the change is a complete load, never a diff from a wrong base")
    func damagedHeldOverlay() async throws {
        let rig = PersonalRig(requestSize: 1_000)
        defer { rig.remove() }
        let (index, coordinator) = try await Self.installList(rig)
        try rig.folder.writePersonalLayer(PersonalLayer(blocked: [NumberRange(first: 33_162_000_400, last: 33_162_000_409)]))
        try await coordinator.loadAll()
        let held = try #require(Syscalls.folderEntries(rig.folder.path).first { $0.hasPrefix("overlay-") })
        // Another valid layer under the held overlay's name (a forger, or a bug): its digest differs.
        try rig.folder.writeAtomically(Array("calldir-personal 1\nblock +33162000401\n".utf8), to: rig.folder.path + "/" + held)
        let layer = PersonalLayer(allowed: [.init(NumberRange(first: 33_162_000_020, last: 33_162_000_020))],
                                  blocked: [NumberRange(first: 33_162_000_400, last: 33_162_000_409)])
        try rig.folder.writePersonalLayer(layer)
        let before = rig.phone.simulator.history.count
        try await coordinator.loadAll()
        #expect(rig.requests(since: before).first?.kind == .complete)
        #expect(rig.phone.simulator.history.allSatisfy { $0.succeeded })
        #expect(DeviceState(rig.phone.simulator) == expectedStore(list: try rig.listStore(index), layer: layer, contacts: [], now: rig.clock.now))
    }
}
