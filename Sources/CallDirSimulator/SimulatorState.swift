import CallDirReader

/// The state and rules of `CallKitSimulator`: the device's store, and the request under way.
struct SimulatorState {
    typealias Report = CallKitSimulator.RequestReport

    let cap: Int
    private(set) var history: [Report] = []
    private(set) var stores = [StoredRuns(), StoredRuns()]  // by kind: blocking, identification
    private(set) var labelTexts: [String] = []
    private var labelIDs: [String: Int32] = [:]
    private var lastLabel: (text: String, id: Int32)?

    // The request under way.
    private var inRequest = false
    private var systemIncremental = false
    /// `isIncremental` was read as true before the request's first add: removes are allowed
    /// and the store is kept.
    private var readTrue = false
    private var addedAny = false
    private var report = Report(kind: .complete)
    private var adds = 0
    private var last: [Int64] = [0, 0]
    private var pending = [StoredRuns(), StoredRuns()]
    private var removed: [Set<Int64>] = [[], []]
    private var removedAll = [false, false]
    private var probe = [0, 0]  // where the re-add check stands in each store

    init(cap: Int) {
        self.cap = cap
    }

    /// True once any request has succeeded, and still after a later failure emptied the
    /// store: what a device's `isIncremental` answers.
    var deviceSaysIncremental: Bool { history.contains { $0.succeeded } }

    mutating func begin(systemSaysIncremental: Bool?) {
        precondition(!inRequest, "CallKitSimulator: beginRequest while a request is under way")
        inRequest = true
        systemIncremental = systemSaysIncremental ?? deviceSaysIncremental
        readTrue = false
        addedAny = false
        report = Report(kind: .complete)
        adds = 0
        last = [0, 0]
        pending = [StoredRuns(), StoredRuns()]
        removed = [[], []]
        removedAll = [false, false]
        probe = [0, 0]
    }

    mutating func end() -> Report {
        precondition(inRequest, "CallKitSimulator: endRequest without beginRequest")
        inRequest = false
        report.kind = readTrue ? .incremental : .complete
        if report.failure != nil {
            stores = [StoredRuns(), StoredRuns()]
        } else {
            // The net effect of the request's calls in call order: removes hit what was stored
            // before (a remove of a number this request added took it out of `pending`), adds
            // follow. A complete request that added nothing deletes everything now.
            for k in 0..<2 {
                if report.kind == .complete || removedAll[k] { stores[k].removeAll() }
                stores[k].remove(sorted: removed[k].sorted())
                stores[k].merge(pending[k])
            }
        }
        pending = [StoredRuns(), StoredRuns()]
        history.append(report)
        return report
    }

    mutating func interrupt(_ code: CallDirectoryErrorCode) {
        fail(code, nil, nil, "the request was interrupted")
    }

    var requestHasFailed: Bool { report.failure != nil }

    mutating func expire() {
        report.expired = true
        fail(.unknown(0), nil, nil, "completeRequest's handler received expired = true: nothing was added")
    }

    mutating func readIncremental() -> Bool {
        precondition(inRequest, "CallKitSimulator: isIncremental read outside a request")
        // Read after the first add, it no longer changes anything: the store was deleted then.
        if systemIncremental, !addedAny { readTrue = true }
        return systemIncremental
    }

    mutating func add(_ number: Int64, kind k: Int, label text: String) {
        add(number, kind: k, label: labelID(text))
    }

    mutating func add(_ number: Int64, kind k: Int, label: Int32) {
        precondition(inRequest, "CallKitSimulator: add outside a request")
        guard report.failure == nil else { return }  // the request has failed already
        let kind: DeviceEntryKind = k == 0 ? .blocking : .identification
        guard adds < cap else {
            return fail(.maximumEntriesExceeded, kind, number, "entry \(adds + 1) of the request: CallKit takes at most \(cap)")
        }
        if !addedAny {
            addedAny = true
            if !readTrue {  // the first add of an unconfirmed request: the device deletes everything now
                stores = [StoredRuns(), StoredRuns()]
            }
        }
        if number <= last[k] {
            let code: CallDirectoryErrorCode = number == last[k] ? .duplicateEntries : .entriesOutOfOrder
            let after = last[k] == 0 ? "the start (0)" : "\(last[k])"
            return fail(code, kind, number, "\(kind.rawValue) entry \(number) is not above \(after)")
        }
        if readTrue, !stores[k].isEmpty, !removedAll[k], removed[k].isEmpty || !removed[k].contains(number) {
            probe[k] = stores[k].firstRun(endingAtOrAbove: number, from: probe[k])
            if probe[k] < stores[k].runs.count, stores[k].runs[probe[k]].first <= number {
                return fail(.duplicateEntries, kind, number,
                            "\(kind.rawValue) entry \(number) is already stored by an earlier request (a device's answer is unknown; never re-add)")
            }
        }
        pending[k].append(number, label: label)
        last[k] = number
        adds += 1
        if k == 0 { report.blockingAdds += 1 } else { report.identificationAdds += 1 }
    }

    mutating func remove(_ number: Int64?, kind k: Int) {
        precondition(inRequest, "CallKitSimulator: remove outside a request")
        guard report.failure == nil else { return }
        guard readTrue else {
            // CallKit's client raises an exception (the condition error 8 names): the
            // extension dies, and the request fails as an interrupted one.
            return fail(.loadingInterrupted, k == 0 ? .blocking : .identification, number,
                        "a remove in a complete request (isIncremental was not read as true before any add): "
                        + "CallKit raises an exception (unexpectedIncrementalRemoval) and the extension crashes")
        }
        if let number {
            removed[k].insert(number)
            pending[k].remove(number)  // "add X, remove X": X is gone
        } else {
            removedAll[k] = true
            pending[k].removeAll()
        }
        report.removes += 1
    }

    private mutating func fail(_ code: CallDirectoryErrorCode, _ kind: DeviceEntryKind?, _ number: Int64?, _ message: String) {
        if report.failure == nil { report.failure = .init(code: code, kind: kind, number: number, message: message) }
    }

    private mutating func labelID(_ text: String) -> Int32 {
        if let lastLabel, lastLabel.text == text { return lastLabel.id }
        let id: Int32
        if let known = labelIDs[text] {
            id = known
        } else {
            id = Int32(labelTexts.count)
            labelTexts.append(text)
            labelIDs[text] = id
        }
        lastLabel = (text, id)
        return id
    }
}
