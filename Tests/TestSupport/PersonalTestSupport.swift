import CallDirReader

/// The store a phone should hold for list ⊕ layer, computed from the plain list's store with
/// sets, independently of `PersonalMergeStream`: precedence exception > personal block >
/// personal label > list.
package func expectedStore(list: DeviceState, layer: PersonalLayer, contacts: [Int64], now: Int64) -> DeviceState {
    func numbers(_ r: NumberRange) -> ClosedRange<Int64> { r.first...r.last }
    var exceptions = Set(contacts)
    for a in layer.allowed where a.expiry.map({ $0 > now }) ?? true { exceptions.formUnion(numbers(a.numbers)) }
    var blocking = Set(list.blocking)
    for b in layer.blocked { blocking.formUnion(numbers(b)) }
    var identification = list.identification
    for l in layer.labels { for n in numbers(l.numbers) { identification[n] = l.text } }
    var state = DeviceState()
    state.blocking = blocking.subtracting(exceptions).sorted()
    state.identification = identification.filter { !exceptions.contains($0.key) }
    return state
}

/// Random lists and edits of the user's layer near one French range, shared by the reader's
/// property test and the coordinator's.
package enum PersonalGenerator {
    package static let base: Int64 = 33_162_000_000

    /// A random small list: ranges and exact numbers of both kinds near `base`.
    package static func randomList<G: RandomNumberGenerator>(_ rng: inout G) -> (block: [String], identify: [String]) {
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

    package static func randomRange<G: RandomNumberGenerator>(_ rng: inout G) -> NumberRange {
        let first = base + Int64.random(in: 0..<260, using: &rng)
        return NumberRange(first: first, last: first + (Bool.random(using: &rng) ? 0 : Int64.random(in: 0..<25, using: &rng)))
    }

    /// One random edit of the layer, the contacts or the clock.
    package static func edit<G: RandomNumberGenerator>(_ layer: inout PersonalLayer, _ contacts: inout [Int64], _ now: inout Int64, _ rng: inout G) {
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
}
