/// `text`: one number, pattern or range per line, or `number<TAB>label` (labels cannot hold
/// a TAB, so they need no quoting). `csv`: a `number` or `number,label` header, then rows
/// with labels quoted when they hold a comma, a quote or edge spaces.
struct TextExport {
    let exporter: Exporter
    let out: ExportOutput

    func write(_ kind: ExportKind) throws -> ExportSummary {
        let csv = exporter.options.format == .csv
        let expand = exporter.options.ranges == .expand
        var summary = ExportSummary()
        if kind == .block {
            if csv { try out.write("number\n") }
            try exporter.blockRows(spans: true, expand: expand) { text in
                summary.records += 1
                try out.write(text + "\n")
            }
            return summary
        }
        if csv { try out.write("number,label\n") }
        let line = { (number: String, label: String) throws in
            summary.records += 1
            try out.write(csv ? number + "," + Escaping.csvField(label) + "\n" : number + "\t" + label + "\n")
        }
        if expand {
            try EntryWalk(index: exporter.index).identifiedExpanded { try line(String($0), $1) }
        } else {
            try exporter.identifyRows(spans: true, line)
        }
        return summary
    }
}
