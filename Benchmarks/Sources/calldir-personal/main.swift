#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BenchmarkTools
import CallDirReader

// `calldir-personal` (docs/BENCHMARKS.md, "The user's layer on the phone"): the extension's
// real path (`CallDirectoryExtensionRequest` reading the App Group FOLDER: index.calldir,
// personal.txt, contacts.vcf, the records) into a counting sink, the app's commit emulated
// after each request. One process per measurement, so each peak is that request's process:
//   calldir-personal contacts INDEX OUT.vcf N INSIDE   N contacts (seeded), INSIDE of them blocked by INDEX
//   calldir-personal load FOLDER [--layer]             a complete load (records cleared first)
//   calldir-personal request FOLDER                    one request from the committed record
// Release builds only: `swift build -c release --product calldir-personal` in Benchmarks/.

/// Counts what a request hands CallKit; sums the numbers so nothing is optimised away.
final class CountingSink: CallDirectoryContext {
    var adds = 0
    var removes = 0
    var sum: Int64 = 0
    var isIncremental: Bool { true }
    func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: Int64) { adds += 1; sum &+= phoneNumber }
    func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: Int64, label: String) { adds += 1; sum &+= phoneNumber }
    func removeBlockingEntry(withPhoneNumber phoneNumber: Int64) { removes += 1; sum &-= phoneNumber }
    func removeAllBlockingEntries() {}
    func removeIdentificationEntry(withPhoneNumber phoneNumber: Int64) { removes += 1; sum &-= phoneNumber }
    func removeAllIdentificationEntries() {}
}

/// What the app does once `reloadExtension` succeeded: commit the pending record, clear it.
func commit(_ folder: SharedFolder) throws -> LoadCheckpoint? {
    guard var record = LoadRecord.decode(try folder.readPending()) else { return nil }
    record.confirmed = true
    try folder.writeAtomically(record.bytes, to: folder.committedPath)
    try folder.remove(folder.pendingPath)
    return record.checkpoint
}

/// One request of the extension, committed; returns the sink, the step and the seconds.
func request(_ folder: SharedFolder, layer: Bool) throws -> (CountingSink, LoadStep?, Double) {
    let sink = CountingSink()
    let extensionRequest = CallDirectoryExtensionRequest(folder: folder, personal: layer ? try PersonalSettings(region: 33) : nil)
    let started = now()
    let step = try extensionRequest.run(into: sink)
    let seconds = now() - started
    _ = try commit(folder)
    return (sink, step, seconds)
}

/// The request's parts without the records' writes, 5 times (nothing committed): resolving the
/// overlay (personal.txt, contacts.vcf, the held overlay) and `DeviceLoader.loadRequest`.
func loaderTimes(_ folder: SharedFolder) throws -> (resolve: Double, build: Double) {
    let committed = try LoadRecord.decode(folder.readCommitted())?.checkpoint
    var (resolves, builds) = ([Double](), [Double]())
    for _ in 0..<5 {
        let t0 = now()
        let overlay = try folder.currentOverlay(PersonalSettings(region: 33))
        let held = committed.flatMap { $0.overlayDigest != overlay.digest ? folder.heldOverlay($0.overlayDigest) : nil }
        let t1 = now()
        let loader = try DeviceLoader(index: CallDirIndex(path: folder.indexPath), overlay: overlay, held: held)
        _ = try loader.loadRequest(into: CountingSink(), resumingFrom: committed)
        resolves.append(t1 - t0)
        builds.append(now() - t1)
    }
    return (resolves.sorted()[2], builds.sorted()[2])
}

/// `count` French numbers, `inside` of them blocked by `index`, seeded (xorshift).
func contacts(_ index: CallDirIndex, count: Int, inside: Int) throws -> [Int64] {
    var state: UInt64 = 0x37_2026
    var (blocked, free): ([Int64], [Int64]) = ([], [])
    while blocked.count < inside || free.count < count - inside {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        let number = 33_100_000_000 + Int64(state % 899_999_999)
        if try index.lookup(number).blocked != nil {
            if blocked.count < inside { blocked.append(number) }
        } else if free.count < count - inside {
            free.append(number)
        }
    }
    return blocked + free
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "contacts" where arguments.count == 5:
        let numbers = try contacts(CallDirIndex(path: arguments[1]), count: Int(arguments[3])!, inside: Int(arguments[4])!)
        var text = ""
        for (i, n) in numbers.enumerated() { text += "BEGIN:VCARD\nVERSION:3.0\nFN:Contact \(i)\nTEL:0\(n - 33_000_000_000)\nEND:VCARD\n" }
        try SharedFolder(path: ".").writeAtomically(Array(text.utf8), to: arguments[2])
    case "load" where arguments.count >= 2:
        let folder = SharedFolder(path: arguments[1])
        for file in [folder.pendingPath, folder.committedPath] { try folder.remove(file) }
        var (entries, requests, seconds) = (0, 0, 0.0)
        while true {
            let (sink, step, time) = try request(folder, layer: arguments.contains("--layer"))
            entries += sink.adds + sink.removes
            requests += 1
            seconds += time
            if step?.isFinished != false { break }
        }
        print("complete load\(arguments.contains("--layer") ? " with the layer" : ""): \(entries) entries in \(requests) requests, \(Int(seconds * 1000)) ms, peak \(memoryKiB().peak) KiB")
    case "request" where arguments.count == 2:
        let (resolve, build) = try loaderTimes(SharedFolder(path: arguments[1]))
        print("resolving the layer and contacts \(formatted(resolve * 1000)) ms, DeviceLoader building the request \(formatted(build * 1000)) ms (medians of 5)")
        let (sink, step, seconds) = try request(SharedFolder(path: arguments[1]), layer: true)
        let kind = step.map { "\($0.kind)" } ?? "none"
        print("one request (\(kind)): \(sink.removes) removals + \(sink.adds) additions, built in \(formatted(seconds * 1000)) ms, "
              + "finished \(step?.isFinished == true), peak \(memoryKiB().peak) KiB")
    default:
        print("usage: calldir-personal contacts INDEX OUT.vcf N INSIDE | load FOLDER [--layer] | request FOLDER")
        exit(64)
    }
} catch {
    print("calldir-personal: \(error)")
    exit(2)
}

func formatted(_ value: Double) -> String {
    let tenths = Int((value * 100).rounded())
    return "\(tenths / 100).\(tenths % 100 < 10 ? "0" : "")\(tenths % 100)"
}
