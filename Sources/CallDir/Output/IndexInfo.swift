#if canImport(Glibc)
import Glibc
#endif
import CallDirReader

extension CallDirIndex {
    /// "N numbers, M ranges (K device entries)", both kinds together.
    package var sizeText: String {
        CallDir.sizeText(numbers: blockedCount + identifiedCount, ranges: blockedRangeCount + identifiedRangeCount,
                         deviceEntries: metadata.deviceEntries)
    }

    /// Stored entries (both kinds) per file byte.
    package var bytesPerEntry: Double {
        let entries = blockedCount + identifiedCount
        return entries == 0 ? 0 : Double(file.bytes.count) / Double(entries)
    }

    package var infoJSON: JSONValue { infoJSON(types: nil) }

    /// `inspect --json`, with the counts per type when computed (`IndexTypeCounts`).
    package func infoJSON(types: IndexTypeCounts?) -> JSONValue {
        let m = metadata
        return .object([
            ("path", .string(path)),
            ("formatVersion", .string(formatVersion)),
            ("bytes", .int(Int64(file.bytes.count))),
            ("checksum", .string(checksumText)),
            ("buildTime", m.buildTime == 0 ? .null : .string(isoDate(m.buildTime))),
            ("generator", .string(m.generator)),
            ("blockedNumbers", .int(Int64(blockedCount))),
            ("identifiedNumbers", .int(Int64(identifiedCount))),
            ("numbersInBoth", .int(Int64(m.numbersInBoth))),
            ("blockedRanges", .int(Int64(blockedRangeCount))),
            ("blockedRangeNumbers", .int(m.blockedRangeNumbers)),
            ("identifiedRanges", .int(Int64(identifiedRangeCount))),
            ("identifiedRangeNumbers", .int(m.identifiedRangeNumbers)),
            ("labels", .int(Int64(labelCount))),
            ("deviceEntries", .int(m.deviceEntries)),
            ("bytesPerEntry", .double(bytesPerEntry)),
        ] + (types.map { [("numbersByType", $0.json)] } ?? []) + [
            ("sections", .array(sectionLayout.map {
                .object([("name", .string($0.name)), ("offset", .int(Int64($0.offset))), ("bytes", .int(Int64($0.length)))])
            })),
        ])
    }

    /// Below this many stored numbers the header and fixed tables (about 1 KB) outweigh them,
    /// and a bytes/number figure would describe the header, not the encoding.
    static let bytesPerNumberMinimum = 1_000

    /// " (2.41 bytes/number)", or why there is no such figure.
    private var bytesPerNumberText: String {
        let entries = blockedCount + identifiedCount
        if entries == 0 { return "" }
        if entries < Self.bytesPerNumberMinimum { return " (mostly header and fixed tables: too few numbers for a bytes/number figure)" }
        return " (\(roundedText(bytesPerEntry)) bytes/number)"
    }

    package var infoText: String { infoText(types: nil) }

    /// `inspect`, with the counts per type when computed (`IndexTypeCounts`).
    package func infoText(types: IndexTypeCounts?) -> String {
        let m = metadata
        var lines = [
            "index            \(path)",
            "format           \(formatVersion)",
            "size             \(counted(file.bytes.count, "byte"))" + bytesPerNumberText,
            "checksum         crc32 \(checksumText)",
            "built            " + (m.buildTime == 0 ? "not recorded (reproducible build)" : isoDate(m.buildTime)),
            "generator        \(m.generator)",
            "blocked          \(counted(blockedCount, "number")), \(counted(blockedRangeCount, "range")) covering \(counted(m.blockedRangeNumbers, "number"))",
            "identified       \(counted(identifiedCount, "number")), \(counted(identifiedRangeCount, "range")) covering \(counted(m.identifiedRangeNumbers, "number"))",
            "labels           \(formatCount(labelCount))",
            "in both kinds    \(counted(m.numbersInBoth, "number"))",
            "device entries   \(formatCount(m.deviceEntries)) (what a CallKit extension would load)",
        ] + (types.map { [$0.text] } ?? []) + [
            "sections",
        ]
        for s in sectionLayout {
            lines.append("  \(s.name.padding(26)) offset \(String(s.offset).padding(10)) \(s.length) bytes")
        }
        return lines.joined(separator: "\n")
    }
}

func roundedText(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}

/// UTC ISO 8601, without Foundation.
func isoDate(_ seconds: Int64) -> String {
    var t = time_t(seconds)
    var parts = tm()
    guard gmtime_r(&t, &parts) != nil else { return "\(seconds) (out of range)" }
    func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
    return "\(Int64(parts.tm_year) + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
