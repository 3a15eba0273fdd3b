import CallDirReader
import CallDirSimulator
import Foundation
import CallDirDevice

/// The device's entries after loading: blocking numbers, and identification numbers with labels.
package struct DeviceState: Equatable {
    package var blocking: [Int64] = []
    package var identification: [Int64: String] = [:]
    package var count: Int { blocking.count + identification.count }

    package init() {}

    package init(_ simulator: CallKitSimulator) {
        simulator.forEachBlockingEntry { blocking.append($0) }
        simulator.forEachIdentificationEntry { identification[$0] = $1 }
    }
}

/// Drives `loader` request after request into `simulator` until it reports done, as an app
/// and its extension would, with every request succeeding. Returns the steps.
@discardableResult
package func loadFully(_ loader: DeviceLoader, into simulator: CallKitSimulator, from start: LoadCheckpoint? = nil) throws -> [LoadStep] {
    var committed = start
    var steps: [LoadStep] = []
    while steps.count < 10_000 {
        simulator.beginRequest(systemSaysIncremental: true)
        let step = try loader.loadRequest(into: simulator, resumingFrom: committed)
        let report = simulator.endRequest()
        guard report.succeeded else { throw CallDirError(.badInput, "request failed: \(report.failure!)") }
        steps.append(step)
        committed = step.checkpoint
        if step.isFinished { break }
    }
    return steps
}

/// Forwards to a simulator and records every add and remove, in call order.
package final class CallRecorder: CallDirectoryContext {
    package struct Call: Equatable {
        package var removes: Bool
        package var kind: DeviceEntryKind
        package var number: Int64
    }

    package let base: CallKitSimulator
    package var calls: [Call] = []

    package init(_ base: CallKitSimulator) { self.base = base }

    package var isIncremental: Bool { base.isIncremental }
    package func addBlockingEntry(withNextSequentialPhoneNumber n: Int64) {
        calls.append(Call(removes: false, kind: .blocking, number: n))
        base.addBlockingEntry(withNextSequentialPhoneNumber: n)
    }
    package func addIdentificationEntry(withNextSequentialPhoneNumber n: Int64, label: String) {
        calls.append(Call(removes: false, kind: .identification, number: n))
        base.addIdentificationEntry(withNextSequentialPhoneNumber: n, label: label)
    }
    package func removeBlockingEntry(withPhoneNumber n: Int64) {
        calls.append(Call(removes: true, kind: .blocking, number: n))
        base.removeBlockingEntry(withPhoneNumber: n)
    }
    package func removeAllBlockingEntries() { base.removeAllBlockingEntries() }
    package func removeIdentificationEntry(withPhoneNumber n: Int64) {
        calls.append(Call(removes: true, kind: .identification, number: n))
        base.removeIdentificationEntry(withPhoneNumber: n)
    }
    package func removeAllIdentificationEntries() { base.removeAllIdentificationEntries() }
}

/// How a request ends, as the property tests draw it: the points where a device's request can
/// fail, before and after the extension writes anything.
package enum RequestFate: CaseIterable {
    case succeeds
    /// Killed before the extension's first line (it wrote nothing).
    case killedBeforeStart
    /// Killed while feeding, after `killAfter` calls (memory, or the index vanished).
    case killedWhileFeeding
    /// The extension wrote its checkpoint; then the host failed the request.
    case hostFailsAfterFeeding
    /// `completeRequest` answered expired (nothing was added), while `reloadExtension`
    /// still reported success.
    case expires
}

/// The protocol's two records (the App Group files), in memory.
package struct ProtocolRecords {
    package var committed: [UInt8]?
    package var pending: [UInt8]?

    package init(committed: [UInt8]? = nil, pending: [UInt8]? = nil) {
        self.committed = committed
        self.pending = pending
    }

    /// What the app believes: the device holds the whole of `index`.
    package func appBelievesFinished(_ index: CallDirIndex) -> Bool {
        guard pending == nil, let committed, let checkpoint = try? LoadCheckpoint(bytes: committed) else { return false }
        return checkpoint.isFinished && checkpoint.names(index)
    }
}

/// Forwards the first `limit` calls to the simulator, then nothing: the extension was killed.
/// `onKill` runs once, at the first dropped call (`Dying` stops the request there).
package class KillSwitch: CallDirectoryContext {
    package let base: CallKitSimulator
    package var left: Int
    private let onKill: () -> Void
    package init(_ base: CallKitSimulator, after limit: Int, onKill: @escaping () -> Void = {}) {
        self.base = base
        left = limit
        self.onKill = onKill
    }
    private func live() -> Bool {
        left -= 1
        if left == -1 { onKill() }
        return left >= 0
    }
    package var isIncremental: Bool { base.isIncremental }
    package func addBlockingEntry(withNextSequentialPhoneNumber n: Int64) { if live() { base.addBlockingEntry(withNextSequentialPhoneNumber: n) } }
    package func addIdentificationEntry(withNextSequentialPhoneNumber n: Int64, label: String) {
        if live() { base.addIdentificationEntry(withNextSequentialPhoneNumber: n, label: label) }
    }
    package func removeBlockingEntry(withPhoneNumber n: Int64) { if live() { base.removeBlockingEntry(withPhoneNumber: n) } }
    package func removeAllBlockingEntries() { if live() { base.removeAllBlockingEntries() } }
    package func removeIdentificationEntry(withPhoneNumber n: Int64) { if live() { base.removeIdentificationEntry(withPhoneNumber: n) } }
    package func removeAllIdentificationEntries() { if live() { base.removeAllIdentificationEntries() } }
}

/// One request of the extension, as `CallDirectoryExtensionRequest` orders it (the under-way
/// record first), or as the old example did (`oldOrdering`: the checkpoint written after
/// feeding, nothing before). Returns whether `reloadExtension` reports success, and the step.
/// `incremental` is what the device's `isIncremental` answers (nil: the simulator's own).
package func extensionRequest(_ loader: DeviceLoader, _ simulator: CallKitSimulator, _ records: inout ProtocolRecords,
                      fate: RequestFate, killAfter: Int = 0, oldOrdering: Bool = false,
                      incremental: Bool) throws -> (reportsSuccess: Bool, step: LoadStep?) {
    simulator.beginRequest(systemSaysIncremental: incremental)
    if fate == .killedBeforeStart {
        simulator.interrupt()
        return (false, nil)
    }
    let leftOver = records.pending
    if !oldOrdering { records.pending = LoadCheckpoint.underWayRecord }
    let start = LoadCheckpoint.resumePoint(committed: records.committed, pendingLeftOver: leftOver)
    let context = KillSwitch(simulator, after: fate == .killedWhileFeeding ? killAfter : .max)
    let step = try loader.loadRequest(into: context, resumingFrom: start)
    if fate == .killedWhileFeeding {
        simulator.interrupt()
        return (false, nil)
    }
    records.pending = step.checkpoint.bytes
    switch fate {
    case .hostFailsAfterFeeding:
        simulator.interrupt()
        return (false, step)
    case .expires:
        simulator.interrupt()  // nothing added: a failed request
        if !oldOrdering { records.pending = LoadCheckpoint.underWayRecord }  // `completed(expired: true)`
        return (true, step)
    default:
        return (simulator.endRequest().succeeded, step)
    }
}

/// The app's half after a request it asked for (as `ReloadCoordinator` does): on success it
/// commits a fed checkpoint; on failure, or without one, it discards both records.
package func appAfterRequest(_ records: inout ProtocolRecords, reportsSuccess: Bool) {
    guard reportsSuccess, case .fed = LoadCheckpoint.pendingRecord(records.pending) else {
        records = ProtocolRecords()
        return
    }
    records.committed = records.pending
    records.pending = nil
}

/// Runs random requests, app-run and system-run, with random fates, then lets the app reload
/// until it believes the load finished, and returns how often the app believed the device
/// finished while the store differed from `expected` (a hole in the protocol).
package func randomProtocolRun(_ loader: DeviceLoader, _ simulator: CallKitSimulator, _ records: inout ProtocolRecords,
                       expected: DeviceState, requests: Int, oldOrdering: Bool = false,
                       rng: inout SeededGenerator) throws -> (holes: Int, finished: Bool) {
    var holes = 0
    let entries = Int(loader.index.metadata.deviceEntries)
    for _ in 0..<requests {
        let systemRun = Int.random(in: 0..<4, using: &rng) == 0
        var fate: RequestFate = Int.random(in: 0..<3, using: &rng) == 0 ? RequestFate.allCases.randomElement(using: &rng)! : .succeeds
        // A system-run request that fails before the extension's first line leaves no trace
        // anywhere the app can read: no protocol closes that (docs/CALLKIT.md), so it is not drawn.
        if systemRun, fate == .killedBeforeStart { fate = .killedWhileFeeding }
        // isIncremental: true once any request succeeded (also over a store a failure emptied), sometimes false.
        let incremental = simulator.history.contains(where: \.succeeded) && Int.random(in: 0..<10, using: &rng) != 0
        let outcome = try extensionRequest(loader, simulator, &records, fate: fate, killAfter: Int.random(in: 0...max(1, entries), using: &rng),
                                           oldOrdering: oldOrdering, incremental: incremental)
        if !systemRun { appAfterRequest(&records, reportsSuccess: outcome.reportsSuccess) }
        if records.appBelievesFinished(loader.index), DeviceState(simulator) != expected { holes += 1 }
    }
    // The app reloads until it believes the device holds the index (every request succeeding).
    for _ in 0..<10_000 where !records.appBelievesFinished(loader.index) {
        let outcome = try extensionRequest(loader, simulator, &records, fate: .succeeds, oldOrdering: oldOrdering,
                                           incremental: simulator.history.contains(where: \.succeeded))
        appAfterRequest(&records, reportsSuccess: outcome.reportsSuccess)
    }
    if records.appBelievesFinished(loader.index), DeviceState(simulator) != expected { holes += 1 }
    return (holes, records.appBelievesFinished(loader.index))
}

/// A whole file's bytes (at most 64 MiB), for byte-for-byte comparisons.
package func fileContents(_ path: String) throws -> [UInt8] {
    try SharedFolder(path: "/").read(path, limit: 1 << 26) ?? []
}
