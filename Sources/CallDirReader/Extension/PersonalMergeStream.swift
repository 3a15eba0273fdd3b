/// One kind's device entries with the personal layer applied: the list's entries
/// (`DeviceEntryStream`) merged with the user's entries of that kind, ascending and each
/// number once (the user's label wins over the list's), minus the exceptions, which cut holes
/// in ranges of either source. Same chunked interface as `DeviceEntryStream`, so
/// `DeviceLoader.feed` and the request cap work unchanged. Memory: the list stream's, one
/// chunk, and the overlay.
@usableFromInline
final class PersonalMergeStream: DeviceFeedSource {
    @usableFromInline
    let kind: DeviceEntryKind
    @usableFromInline
    let numbers: UnsafeMutablePointer<Int64>
    @usableFromInline
    let labelIDs: UnsafeMutablePointer<UInt32>
    /// The last number handed out (the `after` of `seek` before the first).
    @usableFromInline
    private(set) var lastNumber: Int64 = 0

    private let list: DeviceEntryStream
    private let overlay: PersonalOverlay
    private let personal: [(range: NumberRange, label: UInt32)]
    private let personalRanges: [NumberRange]  // personal's ranges, for seeks
    private let personalLabelBase: UInt32
    private var listPos = 0  // into list.numbers
    private var listCount = 0
    private var personalIndex = 0
    private var personalNext: Int64 = 0  // within personal[personalIndex]
    private var exceptionIndex = 0

    @usableFromInline
    init(list: DeviceEntryStream, overlay: PersonalOverlay) {
        self.list = list
        self.overlay = overlay
        kind = list.kind
        // The index's label refs are shared ids below its shared count, or stream refs with the
        // high bit set (`LabelRef`): the user's labels take the ids just above the shared ones.
        personalLabelBase = UInt32(list.sharedLabelCount)
        personal = overlay.entries(list.kind, labelBase: personalLabelBase)
        personalRanges = personal.map(\.range)
        numbers = .allocate(capacity: DeviceEntryStream.chunk)
        labelIDs = .allocate(capacity: DeviceEntryStream.chunk)
    }

    deinit {
        numbers.deallocate()
        labelIDs.deallocate()
    }

    /// Positions both sources after `number` (0: the start).
    @usableFromInline
    func seek(after number: Int64) throws {
        try list.seek(after: number)
        listPos = 0
        listCount = 0
        personalIndex = Self.firstIndex(personalRanges, endingAbove: number)
        if personalIndex < personal.count { personalNext = max(personal[personalIndex].range.first, number &+ 1) }
        exceptionIndex = Self.firstIndex(overlay.exceptions, endingAbove: number)
        lastNumber = number
    }

    @usableFromInline
    func atEnd() throws -> Bool {
        try peek() == nil
    }

    @usableFromInline
    func fill(max limit: Int) throws -> Int {
        let limit = min(limit, DeviceEntryStream.chunk)
        var n = 0
        while n < limit, let (number, label) = try peek() {
            numbers[n] = number
            labelIDs[n] = label
            n += 1
            consume(number)
        }
        if n > 0 { lastNumber = numbers[n - 1] }
        return n
    }

    @usableFromInline
    func label(_ id: UInt32) throws -> String {
        let i = Int(id) - Int(personalLabelBase)
        return !LabelRef.isStream(id) && i >= 0 ? overlay.labels[i].text : try list.label(id)
    }

    /// The next entry not under an exception, without consuming it; nil at the end.
    private func peek() throws -> (Int64, UInt32)? {
        while true {
            let fromList = try peekList()
            let fromUser = personalIndex < personal.count ? personalNext : nil
            let next: (Int64, UInt32)
            switch (fromList, fromUser) {
            case (nil, nil): return nil
            case (let l?, nil): next = l
            case (let l?, let u?) where l.0 < u: next = l
            case (_, let u?): next = (u, personal[personalIndex].label)  // the user's wins a tie
            }
            if !isException(next.0) { return next }
            consume(next.0)
        }
    }

    private func peekList() throws -> (Int64, UInt32)? {
        if listPos == listCount {
            listCount = try list.fill(max: DeviceEntryStream.chunk)
            listPos = 0
            if listCount == 0 { return nil }
        }
        return (list.numbers[listPos], kind == .identification ? list.labelIDs[listPos] : 0)
    }

    /// Moves past `number` in whichever sources hand it out next.
    private func consume(_ number: Int64) {
        if listPos < listCount, list.numbers[listPos] == number { listPos += 1 }
        if personalIndex < personal.count, personalNext == number {
            if number == personal[personalIndex].range.last {
                personalIndex += 1
                if personalIndex < personal.count { personalNext = personal[personalIndex].range.first }
            } else {
                personalNext = number + 1
            }
        }
    }

    /// The first of `ranges` (ascending, disjoint) whose last number is above `number`.
    static func firstIndex(_ ranges: [NumberRange], endingAbove number: Int64) -> Int {
        var (low, high) = (0, ranges.count)
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].last > number { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// Numbers only rise, so the exception cursor only moves forward.
    private func isException(_ number: Int64) -> Bool {
        let exceptions = overlay.exceptions
        while exceptionIndex < exceptions.count, exceptions[exceptionIndex].last < number { exceptionIndex += 1 }
        return exceptionIndex < exceptions.count && exceptions[exceptionIndex].first <= number
    }
}
