import CallDirNumbers
import CallDirReader

/// Saracroche's JSON object form, which `calldir compile --list` reads back:
/// `{"version", "name", "patterns": [{"name", "action", "pattern"}]}`, patterns without '+'
/// as Saracroche publishes them (cbouvat/saracroche-ios, docs/french-list-arcep-operators.json).
/// Blocking rows are named after the list; ranges are written as `#` patterns.
struct SaracrocheExport {
    let exporter: Exporter
    let out: ExportOutput

    func write(_ kind: ExportKind) throws -> ExportSummary {
        var summary = ExportSummary()
        let index = exporter.index
        try out.write("{\n  \"version\": \"\(index.checksumText)\",\n  \"name\": \(quoted(exporter.options.name)),\n  \"patterns\": [")
        let row = { (action: String, name: String, pattern: String) throws in
            try out.write((summary.records == 0 ? "\n" : ",\n") + "    {\"name\": \(quoted(name)), \"action\": \"\(action)\", "
                          + "\"pattern\": \"\(pattern)\"}")
            summary.records += 1
        }
        if kind != .identify {
            try exporter.blockRows(spans: false, expand: false) { try row("block", exporter.options.name, $0) }
        }
        if kind != .block {
            try exporter.identifyRows(spans: false) { try row("identify", $1, $0) }
        }
        try out.write("\n  ]\n}\n")
        return summary
    }

    private func quoted(_ text: String) -> String {
        var result = ""
        JSONValue.quote(text, into: &result)
        return result
    }
}

/// A Begone XML plist (the shape of realdata/swiss-begone-list.plist): dicts of
/// addNational, category, number ('+' E.164, `#` patterns) and title. One kind per file;
/// blocking entries are titled with the list's name.
struct BegoneExport {
    let exporter: Exporter
    let out: ExportOutput

    func write(_ kind: ExportKind) throws -> ExportSummary {
        var summary = ExportSummary()
        try out.write("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <array>

            """)
        let entry = { (number: String, title: String) throws in
            summary.records += 1
            try out.write("\t<dict>\n\t\t<key>addNational</key>\n\t\t<string>false</string>\n\t\t<key>category</key>\n"
                          + "\t\t<string>0</string>\n\t\t<key>number</key>\n\t\t<string>+\(number)</string>\n"
                          + "\t\t<key>title</key>\n\t\t<string>\(Escaping.xmlText(title))</string>\n\t</dict>\n")
        }
        if kind == .block {
            try exporter.blockRows(spans: false, expand: false) { try entry($0, exporter.options.name) }
        } else {
            try exporter.identifyRows(spans: false, entry)
        }
        try out.write("</array>\n</plist>\n")
        return summary
    }
}

/// vCard 4.0, as CardDAV blocklists and contact apps import: one card per label holding its
/// numbers (ranges expanded) as `TEL;VALUE=uri:tel:+E164`, or one card named after the list
/// with every blocked number. Cards come in label-id order; reading them back needs `--sort`.
struct VCardExport {
    let exporter: Exporter
    let out: ExportOutput

    func write(_ kind: ExportKind) throws -> ExportSummary {
        var summary = ExportSummary()
        let walk = EntryWalk(index: exporter.index)
        if kind == .block {
            try begin(exporter.options.name)
            try walk.blockedExpanded { try tel($0) }
            try out.write("END:VCARD\r\n")
            summary.records = 1
            return summary
        }
        let labels = try exporter.index.distinctLabels()
        // Keyed by bytes, not String (canonically equivalent labels are different labels).
        var ids: [[UInt8]: Int] = [:]
        for (i, label) in labels.enumerated() where ids[Array(label.utf8)] == nil { ids[Array(label.utf8)] = i }
        var counts = [Int](repeating: 0, count: labels.count)
        try walk.identifiedExpanded { _, label in counts[ids[Array(label.utf8)]!] += 1 }
        var start = 0
        while start < labels.count {  // labels in batches of at most vcardBatch numbers (or one label)
            var end = start + 1
            var total = counts[start]
            while end < labels.count, total + counts[end] <= exporter.vcardBatch { total += counts[end]; end += 1 }
            summary.records += try cards(labels, ids: ids, counts: counts, batch: start..<end, walk: walk)
            start = end
        }
        return summary
    }

    /// One pass writing the cards of the labels in `batch`: a lone label streams.
    private func cards(_ labels: [String], ids: [[UInt8]: Int], counts: [Int], batch: Range<Int>,
                       walk: EntryWalk) throws -> Int {
        if batch.count == 1 {
            guard counts[batch.lowerBound] > 0 else { return 0 }
            let only = labels[batch.lowerBound]
            try begin(only)
            try walk.identifiedExpanded { n, label in if label.utf8.elementsEqual(only.utf8) { try tel(n) } }
            try out.write("END:VCARD\r\n")
            return 1
        }
        var numbers = [[Int64]](repeating: [], count: batch.count)
        try walk.identifiedExpanded { n, label in
            let id = ids[Array(label.utf8)]!
            if batch.contains(id) { numbers[id - batch.lowerBound].append(n) }
        }
        var written = 0
        for (offset, list) in numbers.enumerated() where !list.isEmpty {
            try begin(labels[batch.lowerBound + offset])
            for n in list { try tel(n) }
            try out.write("END:VCARD\r\n")
            written += 1
        }
        return written
    }

    private func begin(_ name: String) throws {
        try out.write("BEGIN:VCARD\r\nVERSION:4.0\r\n")
        try out.write(Self.folded("FN:" + Escaping.vCardText(name)))
    }

    private func tel(_ number: Int64) throws { try out.write("TEL;VALUE=uri:tel:+\(number)\r\n") }

    /// A content line folded at 75 octets, never inside a UTF-8 sequence (RFC 6350 3.2).
    static func folded(_ line: String) -> String {
        var result = ""
        var width = 0
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            if width + size > 75 { result += "\r\n "; width = 1 }
            result.unicodeScalars.append(scalar)
            width += size
        }
        return result + "\r\n"
    }
}
