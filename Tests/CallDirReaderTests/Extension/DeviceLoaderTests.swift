import CallDirReader
import CallDirSimulator
import Foundation
import Testing
import TestSupport

@Suite("Device loader")
struct DeviceLoaderTests {
    /// Exact numbers inside, between and beside ranges of both kinds; labels on both.
    static let block = ["33162000005", "33162000000-33162000009", "33162000020-33162000024", "33162000012",
                        "33162000030", "33162000025"]
    static let identify = ["33162000105,Exact", "33162000100-33162000199,Wide", "33162000150-33162000159,Narrow",
                           "33162000300,Alone", "33162000155,Exact too"]

    static func expected() -> DeviceState {
        var state = DeviceState()
        state.blocking = Array(33_162_000_000...33_162_000_009) + [33_162_000_012] + Array(33_162_000_020...33_162_000_025)
            + [33_162_000_030]
        for n in Int64(33_162_000_100)...33_162_000_199 { state.identification[n] = "Wide" }
        for n in Int64(33_162_000_150)...33_162_000_159 { state.identification[n] = "Narrow" }
        state.identification[33_162_000_105] = "Exact"
        state.identification[33_162_000_155] = "Exact too"
        state.identification[33_162_000_300] = "Alone"
        return state
    }

    @Test("one merged ascending stream per kind: ranges expanded, exact numbers once, exact labels win")
    func mergedStream() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let index = try buildIndex(folder, "a.calldir", block: Self.block, identify: Self.identify)
        let simulator = CallKitSimulator()
        let steps = try loadFully(DeviceLoader(index: index), into: simulator)
        #expect(steps.count == 1 && steps[0].kind == .complete && steps[0].isFinished)
        #expect(DeviceState(simulator) == Self.expected())
        #expect(simulator.entryCount == index.metadata.deviceEntries)
        #expect(steps[0].blockingEntries == 18 && steps[0].identificationEntries == 101)
    }

    @Test("any request size gives the same store, each request within its size, kinds counted together",
          arguments: [1, 2, 7, 17, 18, 19, 100, 119, 120])
    func requestSizes(size: Int) throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let index = try buildIndex(folder, "a.calldir", block: Self.block, identify: Self.identify)
        let simulator = CallKitSimulator(cap: size)  // a request over the size would fail with error 5
        let steps = try loadFully(DeviceLoader(index: index, requestSize: size), into: simulator)
        #expect(DeviceState(simulator) == Self.expected())
        #expect(steps.count == (119 + size - 1) / size)
        #expect(steps.dropFirst().allSatisfy { $0.kind == .incremental } && steps[0].kind == .complete)
        #expect(steps.dropLast().allSatisfy { $0.entries == size })
        #expect(steps.last?.checkpoint.entriesLoaded == 119)
    }

    @Test("a checkpoint of another index, no checkpoint, or isIncremental false: a complete request from the start")
    func startsOver() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let index = try buildIndex(folder, "a.calldir", block: Self.block, identify: Self.identify)
        let other = try buildIndex(folder, "b.calldir", block: ["33162000000-33162000049"])
        let simulator = CallKitSimulator()
        let loader = try DeviceLoader(index: index, requestSize: 50)
        var steps = try loadFully(loader, into: simulator)
        #expect(steps.count == 3)
        // The same store, then a new index: its first request replaces everything.
        steps = try loadFully(DeviceLoader(index: other, requestSize: 50), into: simulator, from: steps.last!.checkpoint)
        #expect(steps.map(\.kind) == [.complete] && simulator.entryCount == 50 && simulator.identificationCount == 0)
        // Halfway through `index`, the system says the request is not incremental.
        let first = try loadFully(loader, into: simulator).first!
        simulator.beginRequest(systemSaysIncremental: false)
        let restart = try loader.loadRequest(into: simulator, resumingFrom: first.checkpoint)
        #expect(simulator.endRequest().succeeded)
        #expect(restart.kind == .complete && restart.checkpoint == first.checkpoint)
        // A finished load answered incrementally adds nothing and keeps the store.
        let finished = try loadFully(loader, into: simulator).last!.checkpoint
        simulator.beginRequest(systemSaysIncremental: true)
        let idle = try loader.loadRequest(into: simulator, resumingFrom: finished)
        #expect(simulator.endRequest().succeeded && idle.entries == 0 && idle.kind == .incremental && idle.isFinished)
        #expect(DeviceState(simulator) == Self.expected())
    }

    @Test("a checkpoint names its index by checksum and size: the same CRC with another size starts over")
    func identityIsChecksumAndSize() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let index = try buildIndex(folder, "a.calldir", block: ["33100000000-33100000099"])
        var other = LoadCheckpoint(indexChecksum: index.checksum, indexByteCount: Int64(index.file.count) + 8)
        other.lastBlockingNumber = 33_100_000_049
        #expect(!other.names(index) && LoadCheckpoint(index: index).names(index))
        let simulator = CallKitSimulator()
        simulator.beginRequest(systemSaysIncremental: true)
        let step = try DeviceLoader(index: index).loadRequest(into: simulator, resumingFrom: other)
        #expect(simulator.endRequest().succeeded && step.kind == .complete && step.entries == 100)
    }

    @Test("resuming is a seek: a checkpoint in the middle of a block continues with the next number")
    func resumeMidBlock() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let numbers = (0..<2_000).map { 33_100_000_000 + Int64($0) * 7 }
        let index = try buildIndex(folder, "a.calldir", block: numbers.map(String.init) + ["33100005000-33100005009"])
        var checkpoint = LoadCheckpoint(index: index)
        checkpoint.lastBlockingNumber = numbers[999] + 3  // between two exact numbers
        let simulator = CallKitSimulator()
        simulator.beginRequest(systemSaysIncremental: true)
        let step = try DeviceLoader(index: index, requestSize: 5).loadRequest(into: simulator, resumingFrom: checkpoint)
        #expect(simulator.endRequest().succeeded && step.kind == .incremental)
        var fed: [Int64] = []
        simulator.forEachBlockingEntry { fed.append($0) }
        #expect(fed == Array(numbers[1000..<1005]))
        #expect(step.checkpoint.lastBlockingNumber == numbers[1004] && !step.checkpoint.blockingFinished)
        // Inside a range: the rest of it, then the exact numbers after it.
        checkpoint.lastBlockingNumber = 33_100_005_007
        simulator.beginRequest(systemSaysIncremental: false)
        simulator.endRequest()  // empty the store
        simulator.beginRequest(systemSaysIncremental: true)
        _ = try DeviceLoader(index: index, requestSize: 3).loadRequest(into: simulator, resumingFrom: checkpoint)
        simulator.endRequest()
        fed = []
        simulator.forEachBlockingEntry { fed.append($0) }
        #expect(fed == [33_100_005_008, 33_100_005_009, 33_100_005_012])
    }

    @Test("a damaged numbers block fails the load with an error naming it, never a wrong entry")
    func damagedBlock() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let numbers = (0..<3_000).map { String(33_100_000_000 + Int64($0) * 11) }
        let path = try buildIndex(folder, "a.calldir", block: numbers).path
        var bytes = Array(FileManager.default.contents(atPath: path)!)
        bytes[64 + 700] ^= 0x10  // inside the blocked numbers section (the first one written)
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let index = try CallDirIndex(path: path)
        let simulator = CallKitSimulator()
        simulator.beginRequest(systemSaysIncremental: false)
        #expect { try DeviceLoader(index: index).loadRequest(into: simulator, resumingFrom: nil) } throws: { error in
            let e = error as? CallDirError
            return e?.code == .corruptIndex && e?.message.contains("blocked-numbers: block") == true
        }
        #expect(simulator.interrupt().failure?.code == .loadingInterrupted)
    }

    @Test("request size below 1 is a usage error")
    func badRequestSize() throws {
        let folder = TempFolder()
        defer { folder.remove() }
        let index = try buildIndex(folder, "a.calldir", block: ["33162000000"])
        #expect(throws: CallDirError.self) { try DeviceLoader(index: index, requestSize: 0) }
    }
}
