import CallDirNumberTypes
import CallDirReader

/// `inspect`'s counts per libphonenumber type. The format does not store types (a type
/// belongs to a number, and the tables are the generator's, not the index's), so they are
/// computed here from `CallDirNumberTypes`' DFAs, tens of millions of numbers a second.
/// Numbers stored one by one only: a range is not typed (one range may span several types).
package struct IndexTypeCounts: Sendable {
    /// Stored numbers (blocking and identification; a number in both counts twice) by type,
    /// in `NumberType.allCases` order, types with none left out.
    package let byType: [(type: NumberType, count: Int)]
    /// Stored numbers libphonenumber's `is_valid_number` calls invalid.
    package let invalid: Int

    /// Counts every number stored one by one. Throws on a damaged block, as `export` does.
    package init(_ index: CallDirIndex) throws {
        var counts = [Int](repeating: 0, count: NumberType.allCases.count)
        var invalid = 0
        func count(_ number: Int64) {
            if let type = NumberTypes.type(ofE164: number) { counts[type.index] &+= 1 } else { invalid &+= 1 }
        }
        try index.forEachBlockedNumber(count)
        var cursor = NumberCursor(index.identified, path: index.path, checkBlocks: !index.isVerified)
        while let number = try cursor.next() { count(number) }
        byType = NumberType.allCases.enumerated().compactMap { counts[$0.offset] > 0 ? ($0.element, counts[$0.offset]) : nil }
        self.invalid = invalid
    }

    /// `"numbersByType": {"fixed-line": 12, ..., "invalid": 3}` for `inspect --json`.
    package var json: JSONValue {
        .object(byType.map { ($0.type.rawValue, .int(Int64($0.count))) } + [("invalid", .int(Int64(invalid)))])
    }

    /// `types            fixed-line 12, mobile 30, invalid 3 (numbers stored one by one)`.
    package var text: String {
        let parts = byType.map { "\($0.type.rawValue) \(formatCount($0.count))" } + ["invalid \(formatCount(invalid))"]
        return "types            " + parts.joined(separator: ", ") + " (numbers stored one by one; ranges are not typed)"
    }
}
