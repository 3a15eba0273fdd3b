import CallDir
@testable import CallDirServer
import Foundation
import Logging
import Synchronization
import Testing
@testable import CallDirReader
import TestSupport

@Suite("IndexHolder: load, swap, refuse, at most two mapped")
struct IndexHolderTests {
    let scratch = TempFolder()
    let metrics = Metrics()

    func indexes() throws -> (a: String, b: String, served: String) {
        let a = try scratch.compile("a.calldir", block: ["18005555555"])
        let b = try scratch.compile("b.calldir", identify: ["18005555555,B"])
        let served = scratch.file("served.calldir")
        try scratch.publish(a, as: served)
        return (a, b, served)
    }

    @Test("a replaced file is verified and swapped in; the old snapshot keeps answering until released")
    func swap() throws {
        let (_, b, served) = try indexes()
        let holder = IndexHolder(path: served, metrics: metrics, logger: quietLogger)
        guard case .loaded = holder.reload(reason: "start") else { Issue.record("start failed"); return }
        var old = holder.snapshot
        #expect(try old?.index.lookup(18_005_555_555).action == .block)

        try scratch.publish(b, as: served)
        holder.reloadIfReplaced()
        #expect(try holder.snapshot?.index.lookup(18_005_555_555).action == .identify)
        #expect(try old?.index.lookup(18_005_555_555).action == .block)  // still mapped, still right
        #expect(holder.mappedCount == 2)
        old = nil
        #expect(holder.mappedCount == 1)
        #expect(metrics.reloads.count == 2)
        holder.reloadIfReplaced()  // unchanged file: nothing to do
        #expect(metrics.reloads.count == 2)
    }

    @Test("why the last load failed is readable while a reload holds the reload lock")
    func lastErrorDoesNotWaitForReloads() throws {
        let (a, _, served) = try indexes()
        let gate = LogGate(parkOn: "index refused")
        let holder = IndexHolder(path: served, metrics: metrics, logger: Logger(label: "calldir.test") { _ in GateLogHandler(gate: gate) })
        holder.reload(reason: "start")
        try scratch.publish(a, as: served, damage: true)
        // The handshake: the reload logs its refusal inside the reload lock (after recording the
        // failure), and the gate parks it there until the test lets it go. So while the test
        // reads `lastError` below, the reload provably holds the lock.
        gate.arm()
        let finished = DispatchSemaphore(value: 0)
        let reloading = Thread {
            holder.reload(reason: "test")
            finished.signal()
        }
        reloading.start()
        try #require(gate.parked.wait(timeout: .now() + 60) == .success, "the reload never logged its refusal")
        let error = holder.lastError
        // Had `lastError` waited for the reload lock, it could only have returned once the gate
        // gave up holding the reload (after 30 s, a deadlock guard, not a timing assertion).
        let reloadStillHeld = gate.release()
        #expect(reloadStillHeld, "lastError waited for the reload lock: it returned only once the parked reload was given up")
        #expect(error?.code == .corruptIndex, "lastError during the reload: \(String(describing: error))")
        #expect(finished.wait(timeout: .now() + 60) == .success, "the reload did not finish once released")
    }

    @Test("a damaged or missing replacement is refused, counted once, and the old index keeps serving")
    func refusals() throws {
        let (a, b, served) = try indexes()
        let holder = IndexHolder(path: served, metrics: metrics, logger: quietLogger)
        holder.reload(reason: "start")
        let checksum = holder.snapshot?.checksum

        try scratch.publish(b, as: served, damage: true)
        holder.reloadIfReplaced()
        holder.reloadIfReplaced()  // same damaged file: not retried until it changes
        #expect(metrics.reloadFailures.count == 1)
        #expect(holder.snapshot?.checksum == checksum)
        #expect(holder.lastError?.code == .corruptIndex)

        unlink(served)
        holder.reloadIfReplaced()
        holder.reloadIfReplaced()
        #expect(metrics.reloadFailures.count == 2)
        #expect(holder.lastError?.code == .io)
        #expect(holder.snapshot?.checksum == checksum)
        #expect(try holder.snapshot?.index.lookup(18_005_555_555).action == .block)

        if case .refused = holder.reload(reason: "SIGHUP") {} else { Issue.record("SIGHUP on a missing file must be refused") }
        #expect(metrics.reloadFailures.count == 3)

        try scratch.publish(b, as: served)
        holder.reloadIfReplaced()
        #expect(try holder.snapshot?.index.lookup(18_005_555_555).action == .identify)
        #expect(holder.lastError == nil)
        _ = a
    }

    @Test("a reload waits for the retired index to be released: never three mappings")
    func atMostTwo() throws {
        let (a, b, served) = try indexes()
        let holder = IndexHolder(path: served, metrics: metrics, logger: quietLogger, retireWaitMilliseconds: 20)
        holder.reload(reason: "start")
        var first = holder.snapshot  // a request still holding the first index
        try scratch.publish(b, as: served)
        holder.reloadIfReplaced()
        #expect(holder.mappedCount == 2)
        try scratch.publish(a, as: served)
        guard case .deferred = holder.reload(reason: "test") else {
            Issue.record("a third mapping was opened")
            return
        }
        #expect(holder.mappedHighWater == 2)
        #expect(first != nil)
        first = nil
        holder.reloadIfReplaced()  // released now: the deferred replacement goes in
        #expect(try holder.snapshot?.index.lookup(18_005_555_555).action == .block)
        #expect(holder.mappedHighWater == 2)
    }

    @Test("no index at start: unready, then served as soon as the file appears")
    func lateIndex() throws {
        let served = scratch.file("late.calldir")
        let holder = IndexHolder(path: served, metrics: metrics, logger: quietLogger)
        guard case .refused(let error) = holder.reload(reason: "start") else { Issue.record("loaded nothing?"); return }
        #expect(error.code == .io)
        #expect(holder.snapshot == nil)
        try scratch.publish(try scratch.compile("x.calldir", block: ["18005555555"]), as: served)
        holder.reloadIfReplaced()
        #expect(holder.snapshot != nil)
    }
}

/// Parks the thread that logs a message starting with `parkOn`, once armed, until `release()`:
/// a handshake with code that logs while it holds a lock. Waits at most 30 s (then gives up and
/// lets the thread go, so a broken test fails instead of hanging).
final class LogGate: Sendable {
    let parkOn: String
    let parked = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let state = Mutex<(armed: Bool, gaveUp: Bool)>((false, false))

    init(parkOn: String) { self.parkOn = parkOn }

    func arm() { state.withLock { $0.armed = true } }

    /// Called by the logging thread.
    func pass(_ message: String) {
        guard message.hasPrefix(parkOn) else { return }
        let wasArmed = state.withLock { gate -> Bool in
            defer { gate.armed = false }
            return gate.armed
        }
        guard wasArmed else { return }
        parked.signal()
        if released.wait(timeout: .now() + 30) == .timedOut { state.withLock { $0.gaveUp = true } }
    }

    /// Lets the parked thread go; true if it was still parked (the gate had not given up).
    func release() -> Bool {
        let stillParked = state.withLock { !$0.gaveUp }
        released.signal()
        return stillParked
    }
}

struct GateLogHandler: LogHandler {
    let gate: LogGate
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { gate.pass(event.message.description) }
}
