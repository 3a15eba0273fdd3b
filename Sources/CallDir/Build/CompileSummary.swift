import CallDirReader

/// What a successful compile produced and what it left out, with every input row accounted
/// for: rows read = entries stored + range rows + allowlist rows + rows rejected, where
/// rejected rows include collapsed duplicates and blocked numbers removed by the allowlist.
public struct CompileSummary: Sendable {
    public var output: String
    public var rowsRead = 0
    public var blockedNumbers = 0
    public var identifiedNumbers = 0
    public var numbersInBoth = 0
    public var blockedRanges = 0
    public var identifiedRanges = 0
    public var blockedRangeNumbers: Int64 = 0
    public var identifiedRangeNumbers: Int64 = 0
    /// Rows of range syntax read (before merging).
    public var rangeRows = 0
    /// Rows read from --allow lists that became allowed numbers or ranges.
    public var allowRows = 0
    public var labels = 0
    /// Rows dropped by reason: reject reasons, `duplicate`, `label-conflict`, `allowed`, ...
    public var rejected: [String: Int] = [:]
    public var duplicates = 0
    public var labelConflicts = 0
    /// Blocking numbers removed by --allow, and numbers cut out of blocking ranges.
    public var allowedNumbersRemoved = 0
    public var allowedRangeNumbersRemoved: Int64 = 0
    public var deviceEntries: Int64 = 0
    public var sortRuns = 0
    public var fileBytes = 0
    public var checksum: UInt32 = 0
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
    public var bytesPerEntry: Double { entries == 0 ? 0 : Double(fileBytes) / Double(entries) }
    public var rejectedTotal: Int { rejected.values.reduce(0, +) }
}
