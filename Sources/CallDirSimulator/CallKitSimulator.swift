import CallDirReader

/// A strict stand-in for CallKit's Call Directory store, for tests (ours and app teams'): the
/// device's state machine as docs/CALLKIT.md describes it ("What a device does with entries"),
/// keeping the device's entries across requests, so a test can drive requests and check the
/// final state.
///
/// - `isIncremental` answers from the simulator's own history: true once any request has
///   succeeded, and still after a later failure emptied the store (`beginRequest()`;
///   `beginRequest(systemSaysIncremental:)` overrides it for a test).
/// - A request is incremental only if it read `isIncremental` as true before its first add.
///   Otherwise it is complete: the store is deleted at its first add (or at its end if it adds
///   nothing), and a remove crashes the extension: the request fails with error 2.
/// - Adds and removes take effect in call order ("add X, remove X" leaves X absent).
/// - Per request and per kind, numbers must rise strictly from 0: 0 or a repeat is error 4
///   (duplicateEntries), a lower number error 3 (entriesOutOfOrder).
/// - At most `cap` adds per request, both kinds together: the next one is error 5.
/// - Any failed request (and an expired completion) deletes every entry.
/// - Stricter than a device where the device's behaviour is unknown: adding a number an
///   earlier request stored (and this one did not remove) fails with error 4.
///
/// Use: `beginRequest()`, feed it (e.g. `DeviceLoader.loadRequest`), then `endRequest()`
/// (or `interrupt()`, the extension being killed; `expire()`, an expired completion). Calls
/// outside a request are programming errors and trap.
public final class CallKitSimulator: CallDirectoryContext {
    /// Why a request failed: CallKit's code, and what the simulator saw.
    public struct Failure: Equatable, Sendable, CustomStringConvertible {
        /// The error CallKit reports.
        public var code: CallDirectoryErrorCode
        /// The kind of entry that broke a rule (nil when none did, e.g. the extension was killed).
        public var kind: DeviceEntryKind?
        /// The number that broke a rule, if one did.
        public var number: Int64?
        /// What the simulator saw, as one sentence.
        public var message: String
        public var description: String { "\(code): \(message)" }
    }

    /// What one request did.
    public struct RequestReport: Equatable, Sendable {
        /// Whether the request was complete or incremental.
        public var kind: RequestKind
        /// Blocking entries added.
        public var blockingAdds = 0
        /// Identification entries added.
        public var identificationAdds = 0
        /// Entries removed (incremental requests).
        public var removes = 0
        /// Why the request failed, nil when it succeeded.
        public var failure: Failure?
        /// The completion was expired (nothing added); the app may still see success.
        public var expired = false
        /// True when the request did not fail.
        public var succeeded: Bool { failure == nil }
        /// Entries added, both kinds.
        public var adds: Int { blockingAdds + identificationAdds }
    }

    /// The most entries one request may add (CallKit refuses more).
    public let cap: Int
    /// Every request so far, in order.
    public var history: [RequestReport] { state.history }
    /// The rules and the store in one value: one exclusivity check per call, not one per field
    /// (those checks took half of the time of a 15M-entry simulation).
    private var state: SimulatorState

    /// An empty device store whose requests may each add at most `cap` entries.
    public init(cap: Int = CallKitLimits.maxEntriesPerRequest) {
        self.cap = cap
        state = SimulatorState(cap: cap)
    }

    /// Starts a request; `isIncremental` will answer as a device does (see above).
    public func beginRequest() {
        state.begin(systemSaysIncremental: nil)
    }

    /// Starts a request whose `isIncremental` answers `systemSaysIncremental` (for tests of
    /// what a loader does with either answer).
    public func beginRequest(systemSaysIncremental: Bool) {
        state.begin(systemSaysIncremental: systemSaysIncremental)
    }

    /// What `isIncremental` answers in the next request unless overridden: true once any
    /// request has succeeded.
    public var deviceSaysIncremental: Bool { state.deviceSaysIncremental }

    /// Ends the request as the extension's `completeRequest` would: a failed request deletes
    /// every entry; a complete one holds only its adds; an incremental one the net effect of
    /// its calls in call order.
    @discardableResult
    public func endRequest() -> RequestReport { state.end() }

    /// Ends the request as `completeRequest` does when its handler receives `expired` = true:
    /// nothing was added; treated as a failure (every entry deleted).
    @discardableResult
    public func expire() -> RequestReport {
        state.expire()
        return state.end()
    }

    /// True once the request under way has failed (later calls are ignored, as a dead
    /// extension's would be).
    public var requestHasFailed: Bool { state.requestHasFailed }

    /// Ends the request as a device does when the extension is killed (error 2 unless given).
    @discardableResult
    public func interrupt(_ code: CallDirectoryErrorCode = .loadingInterrupted) -> RequestReport {
        state.interrupt(code)
        return state.end()
    }

    // MARK: CallDirectoryContext

    /// Whether the request under way is incremental, as CallKit's context answers.
    public var isIncremental: Bool { state.readIncremental() }

    /// Adds a blocking entry; numbers must ascend within a request, as on a device.
    public func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: Int64) {
        state.add(phoneNumber, kind: 0, label: 0)
    }

    /// Adds an identification entry; numbers must ascend within a request, as on a device.
    public func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: Int64, label: String) {
        state.add(phoneNumber, kind: 1, label: label)
    }

    /// Removes a blocking entry (incremental requests only).
    public func removeBlockingEntry(withPhoneNumber phoneNumber: Int64) { state.remove(phoneNumber, kind: 0) }
    /// Removes every blocking entry (incremental requests only).
    public func removeAllBlockingEntries() { state.remove(nil, kind: 0) }
    /// Removes an identification entry (incremental requests only).
    public func removeIdentificationEntry(withPhoneNumber phoneNumber: Int64) { state.remove(phoneNumber, kind: 1) }
    /// Removes every identification entry (incremental requests only).
    public func removeAllIdentificationEntries() { state.remove(nil, kind: 1) }

    // MARK: The device's store

    /// Blocking entries held.
    public var blockingCount: Int64 { state.stores[0].count }
    /// Identification entries held.
    public var identificationCount: Int64 { state.stores[1].count }
    /// Every entry held, both kinds.
    public var entryCount: Int64 { state.stores[0].count + state.stores[1].count }

    /// Runs of consecutive numbers (with one label) the store keeps: its memory is ~24 bytes each.
    public var storedRunCount: Int { state.stores[0].runs.count + state.stores[1].runs.count }

    /// Whether the device blocks `number`.
    public func isBlocking(_ number: Int64) -> Bool { state.stores[0].label(of: number) != nil }
    /// The label the device shows for `number`, nil when it has none.
    public func label(of number: Int64) -> String? { state.stores[1].label(of: number).map { state.labelTexts[Int($0)] } }

    /// Every blocking entry held, ascending.
    public func forEachBlockingEntry(_ body: (Int64) throws -> Void) rethrows {
        for run in state.stores[0].runs { for n in run.first...run.last { try body(n) } }
    }

    /// Every identification entry held and its label, ascending.
    public func forEachIdentificationEntry(_ body: (Int64, String) throws -> Void) rethrows {
        let texts = state.labelTexts
        for run in state.stores[1].runs { for n in run.first...run.last { try body(n, texts[Int(run.label)]) } }
    }
}
