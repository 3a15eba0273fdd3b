import CallDirReader
import CallDirSimulator
import CallDirDevice

/// A phone for `ReloadCoordinator` tests: `CallKitSimulator` as the device, the library's
/// `CallDirectoryExtensionRequest` as the extension (reading the shared folder), and fates
/// injected per request. Calls are serialised by the coordinator (checked: `maxInFlight`).
package final class SimulatedPhone: CallDirectoryPlatform, @unchecked Sendable {
    package enum Fate: Equatable {
        case succeeds
        /// CallKit fails the request with this code before the extension feeds anything.
        case refused(CallDirectoryErrorCode)
        /// The extension is killed (memory) after this many calls.
        case killedWhileFeeding(after: Int)
        /// The extension wrote its checkpoint; then the host failed the request.
        case hostFailsAfterFeeding
        /// `completeRequest` answered expired; `reloadExtension` still reports success.
        case expires
        /// As `expires`, but the completion handler runs only at `deliverLateCompletion()`:
        /// the app sees success and the fed checkpoint first, the under-way record comes back later.
        case expiresLate
        /// CallKit answers error 7 (another load under way): nothing runs, nothing changes.
        case busy
        /// The request succeeds and CallKit answers the app, but the extension's completion
        /// handler (expired = false: the confirmation) runs only later: at
        /// `deliverLateCompletion()`, or at the app's next call if `lateCompletionsLandAtNextCall`.
        case confirmsLate
        /// `completeRequest` answered expired, and `reloadExtension` reports it as this error.
        case expiresWithError(CallDirectoryErrorCode)
        /// The system starts a request of its own that runs for `seconds` of the app's pauses
        /// (`startOtherLoad`): this reload and every one until it ends answer error 7.
        case otherLoad(seconds: Double)
    }

    package let simulator = CallKitSimulator()
    package let folder: SharedFolder
    package var requestSize: Int
    /// The user's layer as the extension resolves it (nil: the list alone).
    package var personal: PersonalSettings?
    package var fates: [Fate] = []
    /// A slow phone: a request feeding more entries than this expires (nothing added), and
    /// `reloadExtension` reports `reportedAs` (nil: success).
    package var expiresAbove: (entries: Int, reportedAs: CallDirectoryErrorCode?)?
    package var enabled: Bool? = true
    package private(set) var openBackgroundTasks = 0
    package private(set) var inFlight = 0
    package private(set) var maxInFlight = 0
    package private(set) var reloads = 0
    /// Completion handlers owed (`expiresLate`, `confirmsLate`), in the order they will run.
    private var late: [(request: CallDirectoryExtensionRequest, expired: Bool)] = []
    /// The first request whose completion handler has not run yet.
    package var lateCompletion: CallDirectoryExtensionRequest? { late.first?.request }
    /// When true, owed completion handlers run at the app's next call (a reload, a pause): a
    /// moment later, as on a device; when false, only at `deliverLateCompletion()`.
    package var lateCompletionsLandAtNextCall = false
    /// Seconds of the app's pauses so far: the clock of `otherLoad`.
    package private(set) var clock = 0.0
    /// A request the system runs now (`startOtherLoad`), its end on `clock`, and the record it
    /// writes then.
    private var otherLoad: (endsAt: Double, request: CallDirectoryExtensionRequest, fed: [UInt8]?, failed: Bool)?

    package init(folder: SharedFolder, requestSize: Int) {
        self.folder = folder
        self.requestSize = requestSize
    }

    package func reloadExtension() async -> CallDirectoryErrorCode? {
        inFlight += 1
        maxInFlight = max(maxInFlight, inFlight)
        await Task.yield()  // a suspension inside the call: a second load would interleave here
        reloads += 1
        if lateCompletionsLandAtNextCall { deliverLateCompletion() }
        let result: CallDirectoryErrorCode? = otherLoad != nil ? .currentlyLoading : runExtension(fates.isEmpty ? .succeeds : fates.removeFirst())
        inFlight -= 1
        return result
    }

    /// The waits `loadAll` asked for (after error 7), in seconds; nobody sleeps.
    package private(set) var pauses: [Double] = []

    package func isExtensionEnabled() async -> Bool? { enabled }
    package func pause(seconds: Double) async {
        pauses.append(seconds)
        advance(seconds)
        if lateCompletionsLandAtNextCall { deliverLateCompletion() }
    }
    package func beginBackgroundTask() async -> Int { openBackgroundTasks += 1; return openBackgroundTasks }
    package func endBackgroundTask(_ token: Int) async { openBackgroundTasks -= 1 }

    /// One request of the extension with `fate`, as the app's reload or the system starting
    /// it on its own (then call it directly: nobody sees the result). Returns what
    /// `reloadExtension` reports.
    @discardableResult
    package func runExtension(_ fate: Fate) -> CallDirectoryErrorCode? {
        if fate == .busy || otherLoad != nil { return .currentlyLoading }
        if case .otherLoad(let seconds) = fate {
            startOtherLoad(seconds: seconds)
            return .currentlyLoading
        }
        simulator.beginRequest()
        let request = CallDirectoryExtensionRequest(folder: folder, requestSize: requestSize, personal: personal)
        switch fate {
        case .busy, .otherLoad: return .currentlyLoading
        case .refused(let code):
            simulator.interrupt(code)
            return code
        case .killedWhileFeeding(let calls):
            _ = try? request.run(into: Dying(simulator, request: request, after: calls))
            simulator.interrupt()
            return .loadingInterrupted
        case .hostFailsAfterFeeding:
            _ = try? request.run(into: simulator)
            simulator.interrupt()
            return .loadingInterrupted
        case .expires:
            _ = try? request.run(into: simulator)
            simulator.expire()
            request.completed(expired: true)
            return nil
        case .expiresLate:
            _ = try? request.run(into: simulator)
            simulator.expire()
            late.append((request, true))
            return nil
        case .expiresWithError(let code):
            _ = try? request.run(into: simulator)
            simulator.expire()
            request.completed(expired: true)
            return code
        case .confirmsLate:
            guard Self.runs(request, into: simulator) else {
                simulator.interrupt(.unknown(0))
                return .unknown(0)
            }
            let report = simulator.endRequest()
            if report.succeeded { late.append((request, false)) }
            return report.failure?.code
        case .succeeds:
            let step: LoadStep?
            do {
                step = try request.run(into: simulator)
            } catch {  // the extension cancels the request with its own error
                simulator.interrupt(.unknown(0))
                return .unknown(0)
            }
            if let slow = expiresAbove, let step, step.entries > slow.entries {
                simulator.expire()
                request.completed(expired: true)
                return slow.reportedAs
            }
            let report = simulator.endRequest()
            if report.succeeded { request.completed(expired: false) }
            return report.failure?.code
        }
    }

    /// Runs the completion handlers still owed (`expiresLate`: expired; `confirmsLate`: not).
    package func deliverLateCompletion() {
        let owed = late
        late = []
        for (request, expired) in owed { request.completed(expired: expired) }
    }

    /// The system starts a request of its own (it succeeds) that runs for `seconds` of the
    /// app's pauses: it reads the records and writes its under-way record now, its checkpoint
    /// and confirmation when it ends; until then every reload answers error 7.
    package func startOtherLoad(seconds: Double) {
        simulator.beginRequest()
        let request = CallDirectoryExtensionRequest(folder: folder, requestSize: requestSize, personal: personal)
        let failed = !Self.runs(request, into: simulator)
        let fed = (try? folder.readPending()) ?? nil
        if let record = LoadRecord.decode(fed) {  // still feeding: the under-way record until it ends
            try? folder.writeAtomically(LoadRecord(generation: record.generation, checkpoint: nil, requestSize: record.requestSize).bytes,
                                        to: folder.pendingPath)
        }
        otherLoad = (clock + seconds, request, fed, failed)
    }

    /// Runs the extension's request; false when it threw (the extension then fails it).
    private static func runs(_ request: CallDirectoryExtensionRequest, into simulator: CallKitSimulator) -> Bool {
        do {
            _ = try request.run(into: simulator)
            return true
        } catch {
            return false
        }
    }

    /// Whether a request the system started is running now.
    package var otherLoadRunning: Bool { otherLoad != nil }

    /// Advances `clock`; a system request whose time is up ends (its checkpoint, then its
    /// confirmation).
    package func advance(_ seconds: Double) {
        clock += seconds
        guard let load = otherLoad, clock >= load.endsAt else { return }
        otherLoad = nil
        if load.failed {
            simulator.interrupt(.unknown(0))
            return
        }
        if let fed = load.fed { try? folder.writeAtomically(fed, to: folder.pendingPath) }
        if simulator.endRequest().succeeded { load.request.completed(expired: false) }
    }

    /// A random fate: mostly success.
    /// With `late`, also the faults of issue 43: a confirmation after CallKit's answer, an
    /// expiry reported as an error, a system request answering error 7 for up to 10 s.
    package static func randomFate(_ rng: inout SeededGenerator, entries: Int, late: Bool = false) -> Fate {
        switch Int.random(in: 0..<(late ? 13 : 10), using: &rng) {
        case 0: return .refused([.loadingInterrupted, .unknown(102), .maximumEntriesExceeded].randomElement(using: &rng)!)
        case 1: return .killedWhileFeeding(after: Int.random(in: 0...max(1, entries), using: &rng))
        case 2: return .hostFailsAfterFeeding
        case 3: return .expires
        case 10: return .confirmsLate
        case 11: return .expiresWithError([.unknown(0), .unknown(102), .loadingInterrupted].randomElement(using: &rng)!)
        case 12: return .otherLoad(seconds: Double(Int.random(in: 1...20, using: &rng)) / 2)
        default: return .succeeds
        }
    }
}

extension SimulatedPhone {
    /// A random fate of a request the system starts on its own (`runExtension`): as
    /// `randomFate` with `late`, but a refusal becomes a kill before the first call: a request
    /// refused before the extension runs leaves no trace the app could see.
    package static func randomSystemFate(_ rng: inout SeededGenerator, entries: Int) -> Fate {
        let fate = randomFate(&rng, entries: entries, late: true)
        if case .refused = fate { return .killedWhileFeeding(after: 0) }
        return fate
    }
}

/// Forwards calls until `after` of them, then dies: drops every call and stops the request
/// (so the extension writes no checkpoint, as a killed process would not).
package final class Dying: KillSwitch {
    package init(_ base: CallKitSimulator, request: CallDirectoryExtensionRequest, after calls: Int) {
        super.init(base, after: calls, onKill: { request.stop() })
    }
}
