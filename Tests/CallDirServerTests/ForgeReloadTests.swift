import CallDir
import CallDirServer
import Foundation
import Testing
@testable import CallDirReader
import TestSupport

/// The forge sweep's `serve` part: every forged index (every checksum resealed) offered to a
/// running daemon's reload path. A reload refuses it and keeps serving the intact index, or
/// loads it (it verified) and answers from it; nothing traps.
@Suite("Forged indexes offered to the daemon's reload")
struct ForgeReloadTests {
    @Test("every field forged, metadata extremes included: the reload refuses or serves it, and lookups answer")
    func reloadEveryForgery() throws {
        let scratch = TempFolder()
        defer { scratch.remove() }
        let index = try scratch.compile("i.calldir", block: (0..<600).map { String(14_085_550_000 + Int64($0) * 7) } + ["1900555####"],
                                        identify: (0..<300).map { "\(18_005_550_000 + Int64($0) * 13),Caller \($0 % 7)" }
                                            + ["3316200####,Range"])
        let original = Array(FileManager.default.contents(atPath: index)!)
        let served = scratch.file("served.calldir")
        FileManager.default.createFile(atPath: served, contents: Data(original))
        let holder = IndexHolder(path: served, metrics: Metrics(), logger: quietLogger, retireWaitMilliseconds: 0)
        guard case .loaded = holder.reload(reason: "test") else { Issue.record("the intact index was refused"); return }
        let probes: [Int64] = [14_085_550_000, 14_085_550_007, 19_005_551_234, 18_005_550_013, 33_162_001_234, 12_125_550_000]
        let metadata = try #require(Forger(bytes: original).section(1))
        var refused = 0, loaded = 0
        for field in Forger(bytes: original).fields where !field.name.contains(" byte ") || field.offset % 3 == 0 {
            let value = Forger(bytes: original).read(field.offset, field.width)!
            let isMetadata = field.offset >= metadata.offset && field.offset < metadata.offset + 96
            let values = isMetadata
                ? [0, UInt64(Int64.max), UInt64(Int64.max) - 1, UInt64(bitPattern: -1), value &+ 1]
                : Forger.forgeries(of: value, width: field.width)
            for forgery in values where forgery != value {
                var forger = Forger(bytes: original)
                forger.write(field.offset, field.width, forgery)
                forger.reseal()
                try Data(forger.bytes).write(to: URL(fileURLWithPath: served))  // in place, as `cp` would
                switch holder.reload(reason: "forged \(field)") {
                case .loaded: loaded += 1
                case .refused: refused += 1
                case .deferred: break
                }
                let answering = try #require(holder.snapshot, "nothing served after \(field) = \(forgery)")
                for n in probes { _ = try? answering.index.lookup(n) }
                _ = try? answering.index.lookup(probes)
            }
        }
        #expect(refused > 300, "refused \(refused), loaded \(loaded)")
    }
}
