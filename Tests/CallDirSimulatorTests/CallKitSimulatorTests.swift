import Foundation
import CallDirReader
import CallDirSimulator
import Testing

@Suite("CallKit simulator")
struct CallKitSimulatorTests {
    /// Runs one request with `body` and returns its report.
    static func request(_ simulator: CallKitSimulator, incremental: Bool = true,
                        _ body: (CallKitSimulator) -> Void) -> CallKitSimulator.RequestReport {
        simulator.beginRequest(systemSaysIncremental: incremental)
        body(simulator)
        return simulator.endRequest()
    }

    @Test("order per request and kind from 0: 0 or a repeat is error 4, a lower number error 3")
    func order() {
        let sim = CallKitSimulator()
        #expect(Self.request(sim) { $0.addBlockingEntry(withNextSequentialPhoneNumber: 0) }.failure?.code == .duplicateEntries)
        #expect(Self.request(sim) { $0.addBlockingEntry(withNextSequentialPhoneNumber: -5) }.failure?.code == .entriesOutOfOrder)
        let repeated = Self.request(sim) {
            $0.addIdentificationEntry(withNextSequentialPhoneNumber: 5, label: "a")
            $0.addIdentificationEntry(withNextSequentialPhoneNumber: 5, label: "b")
        }
        #expect(repeated.failure?.code == .duplicateEntries && repeated.failure?.kind == .identification)
        let lower = Self.request(sim) {
            $0.addBlockingEntry(withNextSequentialPhoneNumber: 9)
            $0.addBlockingEntry(withNextSequentialPhoneNumber: 8)
        }
        #expect(lower.failure?.code == .entriesOutOfOrder && lower.failure?.number == 8)
        // Kinds are checked separately: identification may go below blocking.
        let ok = Self.request(sim) {
            $0.addBlockingEntry(withNextSequentialPhoneNumber: 9)
            $0.addIdentificationEntry(withNextSequentialPhoneNumber: 3, label: "x")
        }
        #expect(ok.succeeded && sim.entryCount == 2 && sim.label(of: 3) == "x" && sim.isBlocking(9))
    }

    @Test("the cap counts both kinds; the next add is error 5 and the failed request wipes the store")
    func cap() {
        let sim = CallKitSimulator(cap: 3)
        #expect(Self.request(sim) { $0.addBlockingEntry(withNextSequentialPhoneNumber: 100) }.succeeded)
        let over = Self.request(sim) {
            _ = $0.isIncremental
            $0.addBlockingEntry(withNextSequentialPhoneNumber: 1)
            $0.addBlockingEntry(withNextSequentialPhoneNumber: 2)
            $0.addIdentificationEntry(withNextSequentialPhoneNumber: 1, label: "a")
            $0.addIdentificationEntry(withNextSequentialPhoneNumber: 2, label: "a")
        }
        #expect(over.failure?.code == .maximumEntriesExceeded && over.adds == 3)
        #expect(sim.entryCount == 0)
        #expect(CallKitSimulator().cap == 1_999_999)
    }

    @Test("removes need isIncremental read as true; a complete request replaces everything")
    func completeAndIncremental() {
        let sim = CallKitSimulator()
        _ = Self.request(sim) { for n in Int64(10)...20 { $0.addBlockingEntry(withNextSequentialPhoneNumber: n) } }
        #expect(Self.request(sim) { $0.removeBlockingEntry(withPhoneNumber: 10) }.failure?.code == .loadingInterrupted)
        #expect(sim.entryCount == 0)  // the crash failed the request, which wiped the store
        _ = Self.request(sim) { for n in Int64(10)...20 { $0.addBlockingEntry(withNextSequentialPhoneNumber: n) } }
        let changed = Self.request(sim) {
            #expect($0.isIncremental)
            $0.removeBlockingEntry(withPhoneNumber: 15)
            $0.removeBlockingEntry(withPhoneNumber: 99)  // not stored: not an error
            $0.addBlockingEntry(withNextSequentialPhoneNumber: 5)  // below stored numbers: allowed
            $0.addBlockingEntry(withNextSequentialPhoneNumber: 15)  // removed in this request: may come back
        }
        #expect(changed.succeeded && changed.kind == .incremental && sim.blockingCount == 12)
        let readAdd = Self.request(sim) {
            _ = $0.isIncremental
            $0.addBlockingEntry(withNextSequentialPhoneNumber: 12)
        }
        #expect(readAdd.failure?.code == .duplicateEntries, "re-adding a stored number is refused")
        _ = Self.request(sim) { for n in Int64(10)...20 { $0.addBlockingEntry(withNextSequentialPhoneNumber: n) } }
        // Not reading isIncremental makes a request complete, even when the system would say true.
        let empty = Self.request(sim, incremental: true) { _ in }
        #expect(empty.succeeded && empty.kind == .complete && sim.entryCount == 0)
        // Read as false: complete too.
        _ = Self.request(sim) { $0.addIdentificationEntry(withNextSequentialPhoneNumber: 7, label: "L") }
        let falseRead = Self.request(sim, incremental: false) { #expect(!$0.isIncremental) }
        #expect(falseRead.kind == .complete && sim.entryCount == 0)
    }

    @Test("remove all, and removing an identification entry, apply before the request's adds")
    func removeAll() {
        let sim = CallKitSimulator()
        _ = Self.request(sim) {
            for n in Int64(1)...5 { $0.addIdentificationEntry(withNextSequentialPhoneNumber: n, label: "old") }
        }
        let report = Self.request(sim) {
            _ = $0.isIncremental
            $0.removeIdentificationEntry(withPhoneNumber: 2)
            $0.addIdentificationEntry(withNextSequentialPhoneNumber: 2, label: "new")
        }
        #expect(report.succeeded && sim.label(of: 2) == "new" && sim.label(of: 3) == "old" && sim.identificationCount == 5)
        _ = Self.request(sim) {
            _ = $0.isIncremental
            $0.removeAllIdentificationEntries()
            $0.addIdentificationEntry(withNextSequentialPhoneNumber: 3, label: "only")
        }
        #expect(sim.identificationCount == 1 && sim.label(of: 3) == "only" && sim.history.count == 3)
    }

    // MARK: The device's state machine, one behaviour each

    @Test("isIncremental answers from the device's history: false at first, true once a request succeeded, still true over a store a failure emptied")
    func incrementalFromHistory() {
        let sim = CallKitSimulator()
        sim.beginRequest()
        #expect(!sim.isIncremental)
        sim.addBlockingEntry(withNextSequentialPhoneNumber: 7)
        #expect(sim.endRequest().succeeded && sim.deviceSaysIncremental)
        sim.beginRequest()
        #expect(sim.isIncremental)
        #expect(sim.interrupt().failure?.code == .loadingInterrupted && sim.entryCount == 0)
        sim.beginRequest()
        #expect(sim.isIncremental, "true over the empty store: a loader must not trust it after a failure")
        _ = sim.endRequest()
        // The override still decides when a test asks for it.
        sim.beginRequest(systemSaysIncremental: false)
        #expect(!sim.isIncremental)
        _ = sim.endRequest()
    }

    @Test("adds and removes take effect in call order: add X then remove X leaves X absent")
    func callOrder() {
        let sim = CallKitSimulator()
        _ = Self.request(sim) { $0.addBlockingEntry(withNextSequentialPhoneNumber: 5) }
        let report = Self.request(sim) {
            _ = $0.isIncremental
            $0.addBlockingEntry(withNextSequentialPhoneNumber: 8)
            $0.removeBlockingEntry(withPhoneNumber: 8)
            $0.addIdentificationEntry(withNextSequentialPhoneNumber: 9, label: "x")
            $0.removeAllIdentificationEntries()
        }
        #expect(report.succeeded && !sim.isBlocking(8) && sim.isBlocking(5) && sim.label(of: 9) == nil && sim.entryCount == 1)
    }

    @Test("the store is deleted at the first add of a request that did not read isIncremental as true; reading it later changes nothing")
    func deletionAtFirstAdd() {
        let sim = CallKitSimulator()
        _ = Self.request(sim) { for n in Int64(10)...20 { $0.addBlockingEntry(withNextSequentialPhoneNumber: n) } }
        sim.beginRequest()
        sim.addBlockingEntry(withNextSequentialPhoneNumber: 30)
        #expect(sim.entryCount == 0, "deleted at the first add, before the request ends")
        #expect(sim.isIncremental)  // the device would say true, too late: the request is complete
        sim.addBlockingEntry(withNextSequentialPhoneNumber: 31)
        let report = sim.endRequest()
        #expect(report.succeeded && report.kind == .complete && sim.entryCount == 2 && !sim.isBlocking(10))
        // And a remove after that is the crash of a complete request.
        sim.beginRequest()
        sim.addBlockingEntry(withNextSequentialPhoneNumber: 40)
        _ = sim.isIncremental
        sim.removeBlockingEntry(withPhoneNumber: 40)
        #expect(sim.endRequest().failure?.code == .loadingInterrupted && sim.entryCount == 0)
    }

    @Test("a remove in a complete request crashes the extension: the request fails with error 2 and the store is wiped")
    func removeInCompleteRequestCrashes() {
        let sim = CallKitSimulator()
        _ = Self.request(sim) { for n in Int64(1)...3 { $0.addBlockingEntry(withNextSequentialPhoneNumber: n) } }
        for read in [false, true] {
            _ = Self.request(sim) { for n in Int64(1)...3 { $0.addBlockingEntry(withNextSequentialPhoneNumber: n) } }
            let report = Self.request(sim, incremental: false) {
                if read { #expect(!$0.isIncremental) }
                $0.removeIdentificationEntry(withPhoneNumber: 2)
            }
            #expect(report.failure?.code == .loadingInterrupted && report.failure?.code.code == 2)
            #expect(report.failure?.message.contains("unexpectedIncrementalRemoval") == true && sim.entryCount == 0)
        }
    }

    @Test("an expired completion added nothing: a failure, the store wiped")
    func expired() {
        let sim = CallKitSimulator()
        _ = Self.request(sim) { $0.addBlockingEntry(withNextSequentialPhoneNumber: 1) }
        sim.beginRequest()
        _ = sim.isIncremental
        sim.addBlockingEntry(withNextSequentialPhoneNumber: 2)
        let report = sim.expire()
        #expect(report.expired && !report.succeeded && sim.entryCount == 0)
    }

    @Test("error codes are CallKit's exactly; unlisted codes are unknown, never a crash")
    func errorCodes() {
        let names = ["unknown", "noExtensionFound", "loadingInterrupted", "entriesOutOfOrder", "duplicateEntries",
                     "maximumEntriesExceeded", "extensionDisabled", "currentlyLoading", "unexpectedIncrementalRemoval"]
        for (code, name) in names.enumerated() {
            #expect(CallDirectoryErrorCode(code: code).name == name && CallDirectoryErrorCode(code: code).code == code)
        }
        #expect(CallDirectoryErrorCode(code: 102) == .unknown(102) && CallDirectoryErrorCode(code: -1).code == -1)
        #expect(CallDirectoryErrorCode.entriesOutOfOrder.description == "CallKit error 3 (entriesOutOfOrder)")
    }
}
