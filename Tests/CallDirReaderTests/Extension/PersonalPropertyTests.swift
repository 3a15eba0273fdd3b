import CallDirReader
import CallDirSimulator
import Foundation
import Testing
import TestSupport

/// Personal edits, contact changes, expiries and list replacements interleave; each change is
/// sent as the app would (one incremental `PersonalChange` while the device holds the same
/// list, else a complete load of list ⊕ layer), and requests fail as CallKit fails them. After
/// every step the simulator's store equals `expectedStore`, computed with sets.
@Suite("Personal layer properties")
struct PersonalPropertyTests {
    @Test("the store equals list ⊕ layer after every edit, expiry, contact change, list change and failed request",
          arguments: 0..<12)
    func interleaved(seed: UInt64) throws {
        var rng = SeededGenerator(seed: 0x37_0000 + seed)
        let folder = TempFolder()
        defer { folder.remove() }
        var layer = PersonalLayer()
        var contacts: [Int64] = []
        var now: Int64 = 0
        var lists = 0
        var index: CallDirIndex!
        var listStore = DeviceState()
        /// What the app knows the device holds (committed after success): list and overlay.
        var held: (index: CallDirIndex, overlay: PersonalOverlay)?
        let simulator = CallKitSimulator()
        for step in 0..<40 {
            if index == nil || Int.random(in: 0..<8, using: &rng) == 0 {
                let list = PersonalGenerator.randomList(&rng)
                lists += 1
                index = try buildIndex(folder, "l\(lists).calldir", block: list.block, identify: list.identify)
                let plain = CallKitSimulator()
                try loadFully(DeviceLoader(index: index), into: plain)
                listStore = DeviceState(plain)
            } else {
                PersonalGenerator.edit(&layer, &contacts, &now, &rng)
            }
            let target = PersonalOverlay(layer: layer, contacts: contacts.sorted(), now: now)
            if let held, held.index.path == index.path {
                let change = try PersonalChange(index: index, from: held.overlay, to: target)
                simulator.beginRequest(systemSaysIncremental: true)
                #expect(simulator.isIncremental)
                change.feed(into: simulator)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: _ = simulator.interrupt()  // CallKit empties the store
                case 1: _ = simulator.expire()
                default: _ = simulator.endRequest()
                }
            }
            if held == nil || held!.index.path != index.path || simulator.history.last?.succeeded == false {
                // A new list, or a failed request: the store is empty or stale; load completely.
                try loadFully(DeviceLoader(index: index, requestSize: Int.random(in: 1...50, using: &rng), overlay: target),
                              into: simulator)
            }
            held = (index, target)
            let expected = expectedStore(list: listStore, layer: layer, contacts: contacts, now: now)
            #expect(DeviceState(simulator) == expected, "seed \(seed) step \(step)")
            if DeviceState(simulator) != expected { return }
        }
    }
}
