import CallDirReader

/// What a successful compile produced and what it left out, with every input row accounted
/// for: rows read = entries stored + range rows + allowlist rows + rows rejected, where
/// rejected rows include collapsed duplicates and blocked numbers removed by the allowlist.
public struct CompileSummary: Sendable {
    /// The index file written.
    public var output: String
    /// Rows read from every source, whatever became of them.
    public var rowsRead = 0
    /// Blocking numbers stored one by one.
    public var blockedNumbers = 0
    /// Identification numbers stored one by one.
    public var identifiedNumbers = 0
    /// Numbers both blocked and identified.
    public var numbersInBoth = 0
    /// Blocking ranges stored (after merging).
    public var blockedRanges = 0
    /// Identification ranges stored (after merging).
    public var identifiedRanges = 0
    /// Numbers the blocking ranges cover.
    public var blockedRangeNumbers: Int64 = 0
    /// Numbers the identification ranges cover.
    public var identifiedRangeNumbers: Int64 = 0
    /// Rows of range syntax read (before merging).
    public var rangeRows = 0
    /// Rows read from --allow lists that became allowed numbers or ranges.
    public var allowRows = 0
    /// Distinct labels stored.
    public var labels = 0
    /// Rows dropped by reason: reject reasons, `duplicate`, `label-conflict`, `allowed`, ...
    public var rejected: [String: Int] = [:]
    /// Rows dropped as repeats of a number (with `dedupe`).
    public var duplicates = 0
    /// Numbers given two different labels (the first kept).
    public var labelConflicts = 0
    /// Blocking numbers removed by --allow, and numbers cut out of blocking ranges.
    public var allowedNumbersRemoved = 0
    /// Numbers cut out of blocking ranges by `--allow`.
    public var allowedRangeNumbersRemoved: Int64 = 0
    /// Entries a device loads: numbers plus every number a range covers (what `maxNumbers` limits).
    public var deviceEntries: Int64 = 0
    /// Sorted runs the external sort wrote (with `sort`).
    public var sortRuns = 0
    /// The index file's size in bytes.
    public var fileBytes = 0
    /// The index's checksum (FORMAT.md's CRC), as `calldir info` gives it.
    public var checksum: UInt32 = 0
    /// Wall-clock time of the compile.
    public var seconds = 0.0
    /// Things the compile did but that look wrong (most numbers national ones read without
    /// --country...), for stderr and `--json`.
    public var warnings: [String] = []
    /// With `--valid-only` or `--types`: the numbers kept by libphonenumber's number type
    /// (`fixed-line`, `mobile`, `toll-free`...), by name; empty otherwise.
    public var numbersByType: [(type: String, count: Int)] = []
    /// Without --country, when the list looks national: the calling codes most numbers got, most
    /// first (at most 5), each with how many of the *sampled* numbers got it (the first 64
    /// plain numbers of each batch of up to 16,384 rows), not a count over the whole list.
    public var topCountryCodes: [(code: Int, count: Int)] = []

    /// Copies the counts an index's metadata holds.
    mutating func take(_ m: IndexMetadata) {
        blockedNumbers = m.blockedNumbers
        identifiedNumbers = m.identifiedNumbers
        numbersInBoth = m.numbersInBoth
        blockedRanges = m.blockedRanges
        identifiedRanges = m.identifiedRanges
        blockedRangeNumbers = m.blockedRangeNumbers
        identifiedRangeNumbers = m.identifiedRangeNumbers
        labels = m.labels
        deviceEntries = m.deviceEntries
    }

    /// Entries stored one by one, both kinds.
    public var entries: Int { blockedNumbers + identifiedNumbers }
    /// Index bytes per entry stored one by one (0 for an index without any).
    public var bytesPerEntry: Double { entries == 0 ? 0 : Double(fileBytes) / Double(entries) }
    /// Rows dropped for any reason (the sum of `rejected`).
    public var rejectedTotal: Int { rejected.values.reduce(0, +) }
}
