import CallDir
@testable import CallDirServer
import Foundation
import Testing
@testable import CallDirReader

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
        let (a, b, served) = try indexes()
        let holder = IndexHolder(path: served, metrics: metrics, logger: quietLogger, retireWaitMilliseconds: 3000)
        holder.reload(reason: "start")
        let held = holder.snapshot  // a request still using index a
        try scratch.publish(b, as: served)
        holder.reloadIfReplaced()   // a is retired but held
        try scratch.publish(a, as: served)
        let reloading = Thread { holder.reload(reason: "test") }  // waits up to 3 s for a, holding the lock
        reloading.start()
        usleep(200_000)
        let clock = ContinuousClock()
        let took = clock.measure { _ = holder.lastError }
        #expect(took < .seconds(1), "lastError waited \(took) for the reload lock")
        withExtendedLifetime(held) {}
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
