import CallDirReader
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

    @Test("removes need isIncremental read as true (else error 8); a complete request replaces everything")
    func completeAndIncremental() {
        let sim = CallKitSimulator()
        _ = Self.request(sim) { for n in Int64(10)...20 { $0.addBlockingEntry(withNextSequentialPhoneNumber: n) } }
        #expect(Self.request(sim) { $0.removeBlockingEntry(withPhoneNumber: 10) }.failure?.code == .unexpectedIncrementalRemoval)
        #expect(sim.entryCount == 0)  // the failure wiped the store
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
