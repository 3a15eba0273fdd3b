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
    }

    package let simulator = CallKitSimulator()
    package let folder: SharedFolder
    package var requestSize: Int
    /// The user's layer as the extension resolves it (nil: the list alone).
    package var personal: PersonalSettings?
    package var fates: [Fate] = []
    package var enabled: Bool? = true
    package private(set) var openBackgroundTasks = 0
    package private(set) var inFlight = 0
    package private(set) var maxInFlight = 0
    package private(set) var reloads = 0
    /// The request of an `expiresLate` fate whose completion handler has not run yet.
    package private(set) var lateCompletion: CallDirectoryExtensionRequest?

    package init(folder: SharedFolder, requestSize: Int) {
        self.folder = folder
        self.requestSize = requestSize
    }

    package func reloadExtension() async -> CallDirectoryErrorCode? {
        inFlight += 1
        maxInFlight = max(maxInFlight, inFlight)
        await Task.yield()  // a suspension inside the call: a second load would interleave here
        reloads += 1
        let result = runExtension(fates.isEmpty ? .succeeds : fates.removeFirst())
        inFlight -= 1
        return result
    }

    /// The waits `loadAll` asked for (after error 7), in seconds; nobody sleeps.
    package private(set) var pauses: [Double] = []

    package func isExtensionEnabled() async -> Bool? { enabled }
    package func pause(seconds: Double) async { pauses.append(seconds) }
    package func beginBackgroundTask() async -> Int { openBackgroundTasks += 1; return openBackgroundTasks }
    package func endBackgroundTask(_ token: Int) async { openBackgroundTasks -= 1 }

    /// One request of the extension with `fate`, as the app's reload or the system starting
    /// it on its own (then call it directly: nobody sees the result). Returns what
    /// `reloadExtension` reports.
    @discardableResult
    package func runExtension(_ fate: Fate) -> CallDirectoryErrorCode? {
        if fate == .busy { return .currentlyLoading }
        simulator.beginRequest()
        let request = CallDirectoryExtensionRequest(folder: folder, requestSize: requestSize, personal: personal)
        switch fate {
        case .busy: return .currentlyLoading
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
            lateCompletion = request
            return nil
        case .succeeds:
            do {
                _ = try request.run(into: simulator)
            } catch {  // the extension cancels the request with its own error
                simulator.interrupt(.unknown(0))
                return .unknown(0)
            }
            let report = simulator.endRequest()
            if report.succeeded { request.completed(expired: false) }
            return report.failure?.code
        }
    }

    /// Runs the completion handler an `expiresLate` request still owes (expired = true).
    package func deliverLateCompletion() {
        lateCompletion?.completed(expired: true)
        lateCompletion = nil
    }

    /// A random fate: mostly success.
    package static func randomFate(_ rng: inout SeededGenerator, entries: Int) -> Fate {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return .refused([.loadingInterrupted, .unknown(102), .maximumEntriesExceeded].randomElement(using: &rng)!)
        case 1: return .killedWhileFeeding(after: Int.random(in: 0...max(1, entries), using: &rng))
        case 2: return .hostFailsAfterFeeding
        case 3: return .expires
        default: return .succeeds
        }
    }
}

/// Forwards calls until `after` of them, then dies: drops every call and stops the request
/// (so the extension writes no checkpoint, as a killed process would not).
package final class Dying: KillSwitch {
    package init(_ base: CallKitSimulator, request: CallDirectoryExtensionRequest, after calls: Int) {
        super.init(base, after: calls, onKill: { request.stop() })
    }
}
