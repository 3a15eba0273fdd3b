/// The personal layer and the contacts resolved at one moment, ready to merge with the list
/// at load time. Precedence (docs/CALLKIT.md, "The user's layer"):
/// exception (a contact, or an allowance not yet expired) > personal block > personal label > list.
/// - an exception removes the number from both kinds: never blocked, never labelled;
/// - a personal block adds the number to the blocking entries (a list label stays: iOS blocks
///   the call anyway);
/// - a personal label replaces the list's label, or adds one.
/// Each kind is a list of ascending, disjoint ranges: a few hundred entries at most in memory,
/// whatever the list's size.
public struct PersonalOverlay: Equatable, Sendable {
    /// Numbers never blocked nor labelled: contacts and live allowances, merged.
    public let exceptions: [NumberRange]
    /// The user's blocks, merged.
    public let blocked: [NumberRange]
    /// The user's labels, disjoint (`PersonalLayer` refuses overlaps; here a later range keeps
    /// only its numbers above the earlier one's).
    public let labels: [PersonalLayer.Label]
    /// The earliest expiry still ahead: when the app should load again.
    public let nextExpiry: Int64?

    /// `contacts`: normalised numbers (`ContactsSource.numbers`); `now`: Unix seconds.
    public init(layer: PersonalLayer, contacts: [Int64] = [], now: Int64) {
        let live = layer.allowed.filter { $0.expiry.map { $0 > now } ?? true }
        exceptions = Self.union(live.map(\.numbers) + contacts.map { NumberRange(first: $0, last: $0) })
        blocked = Self.union(layer.blocked)
        labels = Self.disjoint(layer.labels)
        nextExpiry = live.compactMap(\.expiry).min()
    }

    /// True when the overlay changes nothing.
    public var isEmpty: Bool { exceptions.isEmpty && blocked.isEmpty && labels.isEmpty }

    /// The overlay as a layer without expiries (contacts and live allowances as plain
    /// allowances): the text `digest` names and the shared folder keeps as a held overlay.
    public var resolvedLayer: PersonalLayer {
        PersonalLayer(allowed: exceptions.map { .init($0) }, blocked: blocked, labels: labels)
    }

    /// The overlay's identity in a load checkpoint, as an index's is its checksum and size:
    /// the CRC-32 of `resolvedLayer.text` (high half) and its byte count (low half); 0 for an
    /// empty overlay (the list alone).
    public var digest: UInt64 {
        guard !isEmpty else { return 0 }
        let text = Array(resolvedLayer.text.utf8)
        return UInt64(Checksum.crc32(text)) << 32 | UInt64(UInt32(clamping: text.count))
    }

    /// Sorted, merged (touching ranges join).
    static func union(_ ranges: [NumberRange]) -> [NumberRange] {
        var merged: [NumberRange] = []
        for r in ranges.sorted() {
            if let last = merged.last, r.first <= last.last &+ 1 {
                merged[merged.count - 1].last = max(last.last, r.last)
            } else {
                merged.append(r)
            }
        }
        return merged
    }

    static func disjoint(_ labels: [PersonalLayer.Label]) -> [PersonalLayer.Label] {
        var result: [PersonalLayer.Label] = []
        for var label in labels.sorted(by: { $0.numbers < $1.numbers }) {
            if let last = result.last?.numbers.last, label.numbers.first <= last {
                guard label.numbers.last > last else { continue }
                label.numbers.first = last + 1
            }
            result.append(label)
        }
        return result
    }

    /// The personal entries of `kind` as (range, label id) ascending; label i is id `base + i`.
    func entries(_ kind: DeviceEntryKind, labelBase base: UInt32) -> [(range: NumberRange, label: UInt32)] {
        switch kind {
        case .blocking: return blocked.map { ($0, 0) }
        case .identification: return labels.enumerated().map { ($0.element.numbers, base + UInt32($0.offset)) }
        }
    }

    /// Where list ⊕ `self` and list ⊕ `other` can differ: a number's entries depend only on
    /// the list and the rules covering it, so only numbers under a rule one overlay has and the
    /// other lacks (one contact added: that number alone). Ascending, disjoint.
    func differingSpans(from other: PersonalOverlay) -> [NumberRange] {
        func oneSided<T: Hashable>(_ a: [T], _ b: [T]) -> [T] {
            let (inA, inB) = (Set(a), Set(b))
            return a.filter { !inB.contains($0) } + b.filter { !inA.contains($0) }
        }
        return Self.union(oneSided(exceptions, other.exceptions) + oneSided(blocked, other.blocked)
                          + oneSided(labels, other.labels).map(\.numbers))
    }
}

extension PersonalOverlay {
    /// Which rule of the layer decided a number's answer.
    public enum Rule: String, Sendable {
        /// A contact, or an allowance not yet expired: neither blocked nor labelled.
        case exception
        /// The user's own block.
        case personalBlock = "your block"
        /// The user's own label.
        case personalLabel = "your label"
    }

    /// What the phone does for `list`'s number: the list's answer with the layer applied
    /// (precedence as above), and the rules of the layer that changed it (none: the list's).
    public func answer(_ list: LookupResult) -> (result: LookupResult, rules: [Rule]) {
        let number = list.number
        func covers(_ r: NumberRange) -> Bool { r.first <= number && number <= r.last }
        if exceptions.contains(where: covers) { return (LookupResult(number: number), [.exception]) }
        var result = list
        var rules: [Rule] = []
        if let block = blocked.first(where: covers), list.blocked == nil {
            result.blocked = block.first == block.last ? .exact : .range
            result.blockedRange = block.first == block.last ? nil : block
            rules.append(.personalBlock)
        }
        if let label = labels.first(where: { covers($0.numbers) }) {
            result.label = label.text
            result.labelMatch = label.numbers.first == label.numbers.last ? .exact : .range
            result.labelRange = label.numbers.first == label.numbers.last ? nil : label.numbers
            rules.append(.personalLabel)
        }
        return (result, rules)
    }

    /// Device entries of list ⊕ this overlay, both kinds: what a complete load feeds.
    public func deviceEntries(_ index: CallDirIndex) throws -> Int64 {
        var total: Int64 = 0
        for kind in DeviceEntryKind.allCases {
            let stream = PersonalMergeStream(list: DeviceEntryStream(index: index, kind: kind, releasingPages: false), overlay: self)
            try stream.seek(after: 0)
            while case let n = try stream.fill(max: DeviceEntryStream.chunk), n > 0 { total += Int64(n) }
        }
        return total
    }
}
