import CallDir
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
    static let base: Int64 = 33_162_000_000

    /// A random small list: ranges and exact numbers of both kinds near `base`.
    static func randomList<G: RandomNumberGenerator>(_ rng: inout G) -> (block: [String], identify: [String]) {
        var block: [String] = []
        var identify: [String] = []
        for i in 0..<Int.random(in: 0...3, using: &rng) {
            let first = base + Int64(i * 60 + Int.random(in: 0..<20, using: &rng))
            block.append("\(first)-\(first + Int64.random(in: 0..<30, using: &rng))")
        }
        for _ in 0..<Int.random(in: 0...4, using: &rng) { block.append("\(base + Int64.random(in: 0..<250, using: &rng))") }
        for i in 0..<Int.random(in: 0...2, using: &rng) {
            let first = base + Int64(i * 100 + Int.random(in: 0..<40, using: &rng))
            identify.append("\(first)-\(first + Int64.random(in: 0..<40, using: &rng)),List \(i)")
        }
        return (block, identify)
    }

    static func randomRange<G: RandomNumberGenerator>(_ rng: inout G) -> NumberRange {
        let first = base + Int64.random(in: 0..<260, using: &rng)
        return NumberRange(first: first, last: first + (Bool.random(using: &rng) ? 0 : Int64.random(in: 0..<25, using: &rng)))
    }

    /// One random edit of the layer, the contacts or the clock.
    static func edit<G: RandomNumberGenerator>(_ layer: inout PersonalLayer, _ contacts: inout [Int64], _ now: inout Int64, _ rng: inout G) {
        switch Int.random(in: 0..<7, using: &rng) {
        case 0: layer.allowed.append(.init(randomRange(&rng), expiry: Bool.random(using: &rng) ? now + Int64.random(in: 1...20, using: &rng) : nil))
        case 1: layer.blocked.append(randomRange(&rng))
        case 2:
            let range = randomRange(&rng)
            layer.labels.removeAll { $0.numbers.first <= range.last && range.first <= $0.numbers.last }
            layer.labels.append(.init(range, text: "Mine \(Int.random(in: 0..<3, using: &rng))"))
        case 3: contacts.append(base + Int64.random(in: 0..<260, using: &rng))
        case 4: if !contacts.isEmpty { contacts.remove(at: Int.random(in: 0..<contacts.count, using: &rng)) }
        case 5: now += Int64.random(in: 1...15, using: &rng)  // allowances expire
        default:
            if !layer.allowed.isEmpty { layer.allowed.remove(at: Int.random(in: 0..<layer.allowed.count, using: &rng)) }
            if !layer.blocked.isEmpty, Bool.random(using: &rng) { layer.blocked.removeLast() }
        }
    }

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
                let list = Self.randomList(&rng)
                lists += 1
                index = try compileIndex(folder, "l\(lists).calldir", block: list.block, identify: list.identify)
                let plain = CallKitSimulator()
                try loadFully(DeviceLoader(index: index), into: plain)
                listStore = DeviceState(plain)
            } else {
                Self.edit(&layer, &contacts, &now, &rng)
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
