/// Build facts stored in the metadata section, for `inspect` and the daemon. Lookups never
/// depend on it: the directories are authoritative and `verify` checks the two agree.
public struct IndexMetadata: Equatable, Sendable {
    /// Blocked numbers stored exactly (ranges not included).
    public var blockedNumbers: Int = 0
    /// Identified numbers stored exactly (ranges not included).
    public var identifiedNumbers: Int = 0
    /// Numbers stored exactly in both kinds (blocked and labelled).
    public var numbersInBoth: Int = 0
    /// Blocking ranges.
    public var blockedRanges: Int = 0
    /// Identification ranges.
    public var identifiedRanges: Int = 0
    /// Numbers covered by the blocking ranges.
    public var blockedRangeNumbers: Int64 = 0
    /// Numbers covered by the identification ranges.
    public var identifiedRangeNumbers: Int64 = 0
    /// Labels stored (shared plus stream; see `CallDirIndex.labelCount`).
    public var labels: Int = 0
    /// Entries a CallKit extension would add: ranges expanded, numbers inside a range once.
    public var deviceEntries: Int64 = 0
    /// Unix seconds from SOURCE_DATE_EPOCH or --build-time; 0 when not recorded, so that
    /// the same input gives the same bytes.
    public var buildTime: Int64 = 0
    /// Labels in the shared-labels store (used more than once).
    public var sharedLabels: Int = 0
    /// Labels in the stream-labels store (used once each).
    public var streamLabels: Int = 0
    /// The program that wrote the index, with its version.
    public var generator: String = "calldir \(CallDirVersion.string)"

    /// Empty metadata (what the compiler fills in).
    public init() {}

    package func encoded() -> [UInt8] {
        var out: [UInt8] = []
        for value in [Int64(blockedNumbers), Int64(identifiedNumbers), Int64(numbersInBoth), Int64(blockedRanges),
                      Int64(identifiedRanges), blockedRangeNumbers, identifiedRangeNumbers, Int64(labels),
                      deviceEntries, buildTime, Int64(sharedLabels), Int64(streamLabels)] {
            out.appendLE(value)
        }
        let text = Array(generator.utf8.prefix(255))
        out.appendLE(UInt32(text.count))
        out.append(contentsOf: text)
        return out
    }

    package init(decoding section: UnsafeRawBufferPointer, path: String) throws {
        var values: [Int64] = []
        for i in 0..<Self.fieldCount {
            guard let v = section.readLE(Int64.self, at: i * 8), v >= 0 else {
                throw CallDirError(.corruptIndex, "metadata: field \(i) missing or negative", path: path)
            }
            values.append(v)
        }
        let textAt = Self.fieldCount * 8 + 4
        guard let length = section.readLE(UInt32.self, at: textAt - 4), textAt + Int(length) <= section.count else {
            throw CallDirError(.corruptIndex, "metadata: generator string out of bounds", path: path)
        }
        blockedNumbers = Int(values[0])
        identifiedNumbers = Int(values[1])
        numbersInBoth = Int(values[2])
        blockedRanges = Int(values[3])
        identifiedRanges = Int(values[4])
        blockedRangeNumbers = values[5]
        identifiedRangeNumbers = values[6]
        labels = Int(values[7])
        deviceEntries = values[8]
        buildTime = values[9]
        sharedLabels = Int(values[10])
        streamLabels = Int(values[11])
        generator = String(decoding: UnsafeRawBufferPointer(rebasing: section[textAt..<(textAt + Int(length))]), as: UTF8.self)
    }

    /// The i64 fields before the generator string.
    static let fieldCount = 12
}

/// calldir's version, as `--version` and an index's generator say it.
package enum CallDirVersion {
    /// The version, `MAJOR.MINOR.PATCH`.
    package static let string = "0.3.0"
}
