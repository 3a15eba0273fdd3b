import CallDirReader

extension CompileSummary {
    package var json: JSONValue { json(ok: true) }

    /// The summary, with `ok` first so a script tells success from failure by one field.
    package func json(ok: Bool) -> JSONValue {
        .object([
            ("ok", .bool(ok)),
            ("output", .string(output)),
            ("rowsRead", .int(Int64(rowsRead))),
            ("blockedNumbers", .int(Int64(blockedNumbers))),
            ("identifiedNumbers", .int(Int64(identifiedNumbers))),
            ("numbersInBoth", .int(Int64(numbersInBoth))),
            ("blockedRanges", .int(Int64(blockedRanges))),
            ("identifiedRanges", .int(Int64(identifiedRanges))),
            ("blockedRangeNumbers", .int(blockedRangeNumbers)),
            ("identifiedRangeNumbers", .int(identifiedRangeNumbers)),
            ("rangeRows", .int(Int64(rangeRows))),
            ("allowRows", .int(Int64(allowRows))),
            ("labels", .int(Int64(labels))),
            ("duplicates", .int(Int64(duplicates))),
            ("labelConflicts", .int(Int64(labelConflicts))),
            ("allowedNumbersRemoved", .int(Int64(allowedNumbersRemoved))),
            ("allowedRangeNumbersRemoved", .int(allowedRangeNumbersRemoved)),
            ("rejected", .object(rejected.sorted { $0.key < $1.key }.map { ($0.key, .int(Int64($0.value))) })),
            ("rejectedTotal", .int(Int64(rejectedTotal))),
            ("deviceEntries", .int(deviceEntries)),
            ("sortRuns", .int(Int64(sortRuns))),
            ("bytes", .int(Int64(fileBytes))),
            ("bytesPerEntry", .double(bytesPerEntry)),
            ("checksum", .string(hex(checksum))),
            ("seconds", .double(seconds)),
            ("warnings", .array(warnings.map { .string($0) })),
            ("topCountryCodes", .object(topCountryCodes.map { ("\($0.code)", .int(Int64($0.count))) })),
            ("numbersByType", .object(numbersByType.map { ($0.type, .int(Int64($0.count))) })),
        ])
    }
}
