import Foundation

/// Helpers every test target shares: a scratch folder and a seeded generator (here), the
/// index builder (IndexBuilder.swift), the forger (ForgeSupport.swift), the device's load
/// rigs (DeviceTestSupport.swift) and a simulated phone (SimulatedPlatform.swift). Phone
/// libraries only: the compile helper is the CompileSupport target's.

/// The package's root folder.
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Path of `name` in ../shared/realdata (the real public lists beside the checkout), or nil
/// when this checkout has none: tests that need it are then skipped and say so.
public func realDataPath(_ name: String) -> String? {
    let path = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/realdata/\(name)").path
    return FileManager.default.fileExists(atPath: path) ? path : nil
}

/// The golden fixture folder (tiny.calldir, FORMAT.md's example, and the lists it is compiled
/// from): the reader's format tests own it, other targets read it from here.
public let goldenFixtures = packageRoot.appendingPathComponent("Tests/CallDirReaderTests/Fixtures")

/// A file's bytes (empty when it cannot be read).
public func fileBytes(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path) ?? Data()) }

/// A valid North American number: 1, area code and exchange 200-999, line 0000-9999.
public func randomNANP<G: RandomNumberGenerator>(using rng: inout G) -> Int64 {
    10_000_000_000 + Int64.random(in: 200...999, using: &rng) * 10_000_000
        + Int64.random(in: 200...999, using: &rng) * 10_000 + Int64.random(in: 0...9_999, using: &rng)
}

/// Random distinct 11-digit NANP-like numbers, ascending, with a few dozen labels.
public func sampleEntries(_ count: Int, seed: UInt64) -> [(Int64, String)] {
    var rng = SeededGenerator(seed: seed)
    var numbers = Set<Int64>()
    while numbers.count < count { numbers.insert(randomNANP(using: &rng)) }
    return numbers.sorted().map { ($0, "Label \($0 % 37)") }
}

/// A fresh folder under /tmp (`mkdtemp`), removed by `remove()`.
public struct TempFolder: Sendable {
    public let path: String

    public init() {
        var template = Array("/tmp/calldir-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: made!)
    }

    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` in the folder; returns the path.
    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        let p = file(name)
        _ = FileManager.default.createFile(atPath: p, contents: Data(text.utf8))
        return p
    }

    /// Writes `bytes` to `name` in the folder; returns the path.
    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) -> String {
        let p = file(name)
        _ = FileManager.default.createFile(atPath: p, contents: Data(bytes))
        return p
    }

    /// Writes `lines`, each ended by a newline.
    @discardableResult
    public func write(_ name: String, _ lines: [String]) -> String { write(name, lines.joined(separator: "\n") + "\n") }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Repeatable random numbers for property tests (SplitMix64), so failures can be replayed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Whether `Syscalls.inject` exists: fault injection compiles only into debug builds (the
/// reader's `FaultInjection.swift`). Tests that inject faults are enabled on it, and compile
/// their bodies under `#if DEBUG`.
#if DEBUG
public let faultInjectionCompiled = true
#else
public let faultInjectionCompiled = false
#endif
public let faultInjectionSkipReason: String = "fault injection compiles only into debug builds (FaultInjection.swift): run `swift test` without -c release"
