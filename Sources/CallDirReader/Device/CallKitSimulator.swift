/// A strict stand-in for CallKit's Call Directory store, for tests (ours and app teams'): it
/// applies the rules DESIGN-NOTES lists ("Loading a Call Directory extension") and keeps the
/// device's entries across requests, so a test can drive requests and check the final state.
///
/// - Per request and per kind, numbers must rise strictly from 0: 0 or a repeat is error 4
///   (duplicateEntries), a lower number error 3 (entriesOutOfOrder).
/// - At most `cap` adds per request, both kinds together: the next one is error 5.
/// - Removes only after `isIncremental` was read and returned true, else error 8.
/// - A request that did not read `isIncremental` as true is complete: it replaces everything,
///   even when it adds nothing. Any failed request deletes every entry.
/// - Stricter than a device where the device's behaviour is unknown: adding a number an
///   earlier request stored (and this one did not remove) fails with error 4.
///
/// Use: `beginRequest(systemSaysIncremental:)`, feed it (e.g. `DeviceLoader.loadRequest`),
/// then `endRequest()` (or `interrupt()`, the extension being killed). Calls outside a
/// request are programming errors and trap.
public final class CallKitSimulator: CallDirectoryContext {
    /// Why a request failed: CallKit's code, and what the simulator saw.
    public struct Failure: Equatable, Sendable, CustomStringConvertible {
        public var code: CallDirectoryErrorCode
        public var kind: DeviceEntryKind?
        public var number: Int64?
        public var message: String
        public var description: String { "\(code): \(message)" }
    }

    /// What one request did.
    public struct RequestReport: Equatable, Sendable {
        public var kind: RequestKind
        public var blockingAdds = 0
        public var identificationAdds = 0
        public var removes = 0
        public var failure: Failure?
        public var succeeded: Bool { failure == nil }
        public var adds: Int { blockingAdds + identificationAdds }
    }

    public let cap: Int
    /// Every request so far, in order.
    public private(set) var history: [RequestReport] = []

    private var stores = [StoredRuns(), StoredRuns()]  // by kind: blocking, identification
    private var labelTexts: [String] = []
    private var labelIDs: [String: Int32] = [:]
    private var lastLabel: (text: String, id: Int32)?

    // The request under way.
    private var inRequest = false
    private var systemIncremental = false
    private var readIncremental = false
    private var report = RequestReport(kind: .complete)
    private var adds = 0
    private var last: [Int64] = [0, 0]
    private var pending = [StoredRuns(), StoredRuns()]
    private var removed: [Set<Int64>] = [[], []]
    private var removedAll = [false, false]
    private var probe = [0, 0]  // where the re-add check stands in each store

    public init(cap: Int = CallKitLimits.maxEntriesPerRequest) {
        self.cap = cap
    }

    /// Starts a request; `systemSaysIncremental` is what `isIncremental` will answer.
    public func beginRequest(systemSaysIncremental: Bool) {
        precondition(!inRequest, "CallKitSimulator: beginRequest while a request is under way")
        inRequest = true
        systemIncremental = systemSaysIncremental
        readIncremental = false
        report = RequestReport(kind: .complete)
        adds = 0
        last = [0, 0]
        pending = [StoredRuns(), StoredRuns()]
        removed = [[], []]
        removedAll = [false, false]
        probe = [0, 0]
    }

    /// Ends the request as the extension's `completeRequest` would: a failed request deletes
    /// every entry; a complete one replaces them; an incremental one applies its removes, then
    /// its adds.
    @discardableResult
    public func endRequest() -> RequestReport {
        precondition(inRequest, "CallKitSimulator: endRequest without beginRequest")
        inRequest = false
        report.kind = readIncremental ? .incremental : .complete
        if report.failure != nil {
            stores = [StoredRuns(), StoredRuns()]
        } else {
            for k in 0..<2 {
                if report.kind == .complete || removedAll[k] { stores[k].removeAll() }
                for number in removed[k] { stores[k].remove(number) }
                stores[k].merge(pending[k])
            }
        }
        pending = [StoredRuns(), StoredRuns()]
        history.append(report)
        return report
    }

    /// Ends the request as a device does when the extension is killed (error 2 unless given).
    @discardableResult
    public func interrupt(_ code: CallDirectoryErrorCode = .loadingInterrupted) -> RequestReport {
        fail(code, nil, nil, "the request was interrupted")
        return endRequest()
    }

    // MARK: CallDirectoryContext

    public var isIncremental: Bool {
        precondition(inRequest, "CallKitSimulator: isIncremental read outside a request")
        if systemIncremental { readIncremental = true }
        return systemIncremental
    }

    public func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: Int64) {
        add(phoneNumber, kind: 0, label: 0)
    }

    public func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: Int64, label: String) {
        add(phoneNumber, kind: 1, label: labelID(label))
    }

    public func removeBlockingEntry(withPhoneNumber phoneNumber: Int64) { remove(phoneNumber, kind: 0) }
    public func removeAllBlockingEntries() { remove(nil, kind: 0) }
    public func removeIdentificationEntry(withPhoneNumber phoneNumber: Int64) { remove(phoneNumber, kind: 1) }
    public func removeAllIdentificationEntries() { remove(nil, kind: 1) }

    // MARK: The device's store

    public var blockingCount: Int64 { stores[0].count }
    public var identificationCount: Int64 { stores[1].count }
    /// Every entry held, both kinds.
    public var entryCount: Int64 { stores[0].count + stores[1].count }

    public func isBlocking(_ number: Int64) -> Bool { stores[0].label(of: number) != nil }
    public func label(of number: Int64) -> String? { stores[1].label(of: number).map { labelTexts[Int($0)] } }

    /// Every blocking entry held, ascending.
    public func forEachBlockingEntry(_ body: (Int64) throws -> Void) rethrows {
        for run in stores[0].runs { for n in run.first...run.last { try body(n) } }
    }

    /// Every identification entry held and its label, ascending.
    public func forEachIdentificationEntry(_ body: (Int64, String) throws -> Void) rethrows {
        for run in stores[1].runs { for n in run.first...run.last { try body(n, labelTexts[Int(run.label)]) } }
    }

    // MARK: Rules

    private func add(_ number: Int64, kind k: Int, label: Int32) {
        precondition(inRequest, "CallKitSimulator: add outside a request")
        guard report.failure == nil else { return }  // the request has failed already
        let kind: DeviceEntryKind = k == 0 ? .blocking : .identification
        guard adds < cap else {
            return fail(.maximumEntriesExceeded, kind, number, "entry \(adds + 1) of the request: CallKit takes at most \(cap)")
        }
        if number <= last[k] {
            let code: CallDirectoryErrorCode = number == last[k] ? .duplicateEntries : .entriesOutOfOrder
            let after = last[k] == 0 ? "the start (0)" : "\(last[k])"
            return fail(code, kind, number, "\(kind.rawValue) entry \(number) is not above \(after)")
        }
        if readIncremental, !removedAll[k], !removed[k].contains(number) {
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

    private func remove(_ number: Int64?, kind k: Int) {
        precondition(inRequest, "CallKitSimulator: remove outside a request")
        guard report.failure == nil else { return }
        guard readIncremental else {
            return fail(.unexpectedIncrementalRemoval, k == 0 ? .blocking : .identification, number,
                        "a remove in a complete request (isIncremental was not read as true)")
        }
        if let number { removed[k].insert(number) } else { removedAll[k] = true }
        report.removes += 1
    }

    private func fail(_ code: CallDirectoryErrorCode, _ kind: DeviceEntryKind?, _ number: Int64?, _ message: String) {
        if report.failure == nil { report.failure = Failure(code: code, kind: kind, number: number, message: message) }
    }

    private func labelID(_ text: String) -> Int32 {
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
