import CallDirReader
import CallDirPatch

extension DeltaSummary {
    package var infoJSON: JSONValue {
        .object([
            ("path", .string(path)),
            ("oldChecksum", .string(hex(oldChecksum))),
            ("newChecksum", .string(hex(newChecksum))),
            ("removedBlocked", .int(Int64(removedBlocked))),
            ("addedBlocked", .int(Int64(addedBlocked))),
            ("removedIdentified", .int(Int64(removedIdentified))),
            ("addedIdentified", .int(Int64(addedIdentified))),
            ("removedRanges", .int(Int64(removedRanges))),
            ("addedRanges", .int(Int64(addedRanges))),
            ("bytes", .int(Int64(bytes))),
            ("checksum", .string(hex(checksum))),
            ("seconds", .double(seconds)),
        ])
    }
}

extension DeltaFile {
    package var infoJSON: JSONValue {
        guard case .object(var members) = summary.infoJSON else { return summary.infoJSON }
        members.removeAll { $0.0 == "seconds" }
        members.insert(("kind", .string("delta")), at: 1)
        members.insert(("formatVersion", .string("\(Self.majorVersion).\(Self.minorVersion)")), at: 2)
        members.append(("sections", .array(sectionLayout.map {
            .object([("name", .string($0.name)), ("offset", .int(Int64($0.offset))), ("bytes", .int(Int64($0.length)))])
        })))
        return .object(members)
    }

    package var infoText: String {
        let s = summary
        var lines = [
            "delta            \(path)",
            "format           delta \(Self.majorVersion).\(Self.minorVersion)",
            "size             \(s.bytes) bytes",
            "checksum         crc32 \(hex(checksum))",
            "from             index crc32 \(hex(oldChecksum)) (\(oldSize) bytes)",
            "to               index crc32 \(hex(newChecksum)) (\(newSize) bytes)",
            "blocked          -\(s.removedBlocked) +\(s.addedBlocked) numbers",
            "identified       -\(s.removedIdentified) +\(s.addedIdentified) numbers",
            "ranges           -\(s.removedRanges) +\(s.addedRanges)",
            "sections",
        ]
        for section in sectionLayout {
            lines.append("  " + section.name + String(repeating: " ", count: max(1, 29 - section.name.count))
                         + "offset \(section.offset) \(section.length) bytes")
        }
        return lines.joined(separator: "\n")
    }
}
