@testable import CallDirDevice
@testable import CallDirPatch
@testable import CallDirReader
import CallDirSimulator
import Testing
import TestSupport

/// Personal edits, contact changes, expiries and list deltas interleave on the app's real path
/// (`ReloadCoordinator`, `CallDirectoryExtensionRequest` reading `personal.txt` and
/// `contacts.vcf`), with the coordinator's fault kinds: requests refused, the extension killed
/// while feeding, the host failing after the checkpoint, expired completions (also delivered
/// while the app waits for the confirmation, after it committed, or after `loadAll`), expiries
/// CallKit reports as errors, confirmations that come after CallKit's answer, system-run
/// requests after success and after commit (one writing identical bytes, then failing), error 7
/// (also from a system request running up to 10 s), the app killed at any step (between its
/// commit and clearing pending too), and the user editing the layer while a load is under way. After every step the simulator's store equals
/// `expectedStore`, computed with sets from the plain list's store.
@Suite("Personal layer properties with the coordinator's faults")
struct PersonalCoordinatorPropertyTests {
    /// The user's side and the faults, shared with the coordinator's step hook.
    final class World: @unchecked Sendable {  // used by one test at a time, one step at a time
        var rng: SeededGenerator
        var layer = PersonalLayer()
        var contacts: [Int64] = []
        let rig: PersonalRig
        private(set) var faults = 0
        /// Edits while a load is under way, left in this step (each restarts a complete load).
        var editsDuringLoad = 0

        init(seed: UInt64, rig: PersonalRig) {
            rng = SeededGenerator(seed: 0x37C0 &+ seed &* 7_919)
            self.rig = rig
        }

        /// One edit of the layer, the contacts or the clock, published as the app does.
        func edit() throws {
            var now = rig.clock.now
            PersonalGenerator.edit(&layer, &contacts, &now, &rng)
            rig.clock.now = now
            try rig.folder.writePersonalLayer(layer)
            try rig.folder.writeContacts(contacts)
        }

        /// A fault at `step` of `loadAll`, now and then.
        func at(_ step: ReloadStep) throws {
            let phone = rig.phone
            guard Int.random(in: 0..<8, using: &rng) == 0 else { return }
            faults += 1
            switch step {
            case .beforeReload:
                if phone.fates.isEmpty {
                    phone.fates = [[.expiresLate, .busy, .confirmsLate, .expiresWithError(.unknown(0)),
                                    .otherLoad(seconds: Double(Int.random(in: 1...20, using: &rng)) / 2)].randomElement(using: &rng)!]
                }
            case .awaitingConfirmation:
                phone.deliverLateCompletion()  // the completion handler runs while the app waits
            case .afterSuccess:
                phone.runExtension(systemFate())  // a system-run request before the app reads pending
            case .afterCommit:
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: phone.deliverLateCompletion()
                case 1: phone.runExtension(.hostFailsAfterFeeding)  // may write the committed bytes again
                case 2 where editsDuringLoad > 0:  // the user edits while the load is under way
                    editsDuringLoad -= 1
                    try edit()
                default: phone.runExtension(systemFate())
                }
            default: break
            }
            // The app killed (after a commit too: before it cleared pending).
            if Int.random(in: 0..<4, using: &rng) == 0 { throw ReloadCoordinatorTests.AppKilled() }
        }

        func systemFate() -> SimulatedPhone.Fate { SimulatedPhone.randomSystemFate(&rng, entries: 300) }
    }

    /// A list near `PersonalGenerator.base`, and a small change of it (a delta).
    static func mutate(_ list: inout (block: [String], identify: [String]), _ rng: inout SeededGenerator) {
        let n = PersonalGenerator.base + Int64.random(in: 0..<260, using: &rng)
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: list.block.append("\(n)")
        case 1: if !list.block.isEmpty { list.block.remove(at: Int.random(in: 0..<list.block.count, using: &rng)) }
        default: list.identify.append("\(n),Delta \(Int.random(in: 0..<2, using: &rng))")
        }
    }

    @Test("the store equals list ⊕ layer after every edit, contact change, expiry and list delta, whatever fault lands", arguments: 0..<10)
    func interleaved(seed: UInt64) async throws {
        let rig = PersonalRig(requestSize: 1)
        defer { rig.remove() }
        let world = World(seed: seed, rig: rig)
        rig.phone.requestSize = Int.random(in: 5...60, using: &world.rng)
        var list = PersonalGenerator.randomList(&world.rng)
        var lists = 0
        var index: CallDirIndex?
        for step in 0..<24 {
            if index == nil || Int.random(in: 0..<5, using: &world.rng) == 0 {
                if index != nil { Self.mutate(&list, &world.rng) }
                lists += 1
                let next = try buildIndex(rig.scratch, "l\(lists).calldir", block: list.block, identify: list.identify)
                try await rig.coordinator().install(next.path)
                index = next
            } else {
                try world.edit()
            }
            try await Self.loadWithFaults(world)
            let expected = expectedStore(list: try rig.listStore(index!), layer: world.layer, contacts: world.contacts, now: rig.clock.now)
            #expect(DeviceState(rig.phone.simulator) == expected, "seed \(seed) step \(step) (\(world.faults) faults)")
            if DeviceState(rig.phone.simulator) != expected { return }
        }
        #expect(world.faults > 0)
    }

    /// `loadAll` until it returns finished, with random fates, faults at its steps, and
    /// relaunches after the app is killed or gives up.
    static func loadWithFaults(_ world: World) async throws {
        let rig = world.rig
        world.editsDuringLoad = 1
        for _ in 0..<100 {
            rig.phone.fates = (0..<Int.random(in: 0...3, using: &world.rng)).map { _ in SimulatedPhone.randomFate(&world.rng, entries: 300, late: true) }
            rig.phone.lateCompletionsLandAtNextCall = Bool.random(using: &world.rng)
            let app = rig.coordinator()
            await app.setStepHook { try world.at($0) }
            do {
                try await app.loadAll()
            } catch is ReloadCoordinatorTests.AppKilled {
                continue
            } catch is ReloadError {
                continue
            }
            rig.phone.deliverLateCompletion()  // a late completion still owed lands after loadAll
            if try await rig.coordinator().isLoadedCompletely() { return }
        }
        Issue.record("never finished")
    }
}
