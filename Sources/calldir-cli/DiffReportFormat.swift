import ArgumentParser
import CallDir
import CallDirNumbers
import CallDirReader

/// `calldir diff --report`: its options and the report as text, Markdown (a pull-request
/// comment) or JSON, on stdout.
struct ReviewOptions: ParsableArguments {
    @Flag(help: "Print a review of the change on stdout: per kind the numbers added, removed and relabeled (ranges counted by size), the top label changes with example numbers (counted in a bounded map of 2,048 changes: beyond that the counts are lower bounds, and say so), ranges added, removed and resized, and the entries a device loads before and after. Without -o no delta is written.")
    var report = false

    @Option(help: ArgumentHelp("The report's format: text, markdown (for a pull-request comment) or json.", valueName: "format"))
    var format: ReportFormat = .text

    @Option(name: .customLong("max-numbers"),
            help: ArgumentHelp("The device budget: the report warns when NEW needs 90% of it or more, and diff exits 1 when NEW needs more.", valueName: "n"))
    var maxNumbers: Int64?

    enum ReportFormat: String, ExpressibleByArgument, CaseIterable { case text, markdown, json }

    func render(_ r: DiffReport) -> String {
        switch format {
        case .json: return r.json.rendered() + "\n"
        case .markdown: return ReportText(report: r, markdown: true).rendered
        case .text: return ReportText(report: r, markdown: false).rendered
        }
    }
}

/// The report's text and Markdown forms: the same lines, Markdown adding a title, a table and code spans.
private struct ReportText {
    let report: DiffReport
    let markdown: Bool

    var rendered: String {
        let r = report
        var lines: [String] = []
        if markdown {
            lines.append("### calldir: what this change does on a device")
            lines.append("")
            lines.append("`\(r.oldPath)` (\(hex(r.oldChecksum))) → `\(r.newPath)` (\(hex(r.newChecksum)))")
            lines.append("")
            lines.append("| | added | removed | label changed | device removals | device additions |")
            lines.append("|---|---:|---:|---:|---:|---:|")
            for (name, k) in [("blocking", r.blocking), ("identification", r.identification)] {
                lines.append("| \(name) | +\(formatCount(k.added)) | −\(formatCount(k.removed)) | \(formatCount(k.relabeled)) | "
                             + "\(formatCount(k.deviceRemovals)) | \(formatCount(k.deviceAdditions)) |")
            }
            lines.append("")
        } else {
            lines.append("diff report: \(r.oldPath) (\(hex(r.oldChecksum))) -> \(r.newPath) (\(hex(r.newChecksum)))")
            for (name, k) in [("blocking", r.blocking), ("identification", r.identification)] {
                lines.append("\(name): +\(formatCount(k.added)) -\(formatCount(k.removed)) numbers, \(formatCount(k.relabeled)) label changes "
                             + "(device: \(formatCount(k.deviceRemovals)) removals, \(formatCount(k.deviceAdditions)) additions)")
            }
        }
        for (name, k) in [("blocking", r.blocking), ("identification", r.identification)] {
            if !k.addedExamples.isEmpty {
                let shown = k.addedExamples.enumerated().map { i, e in span(e) + (i < k.addedLabels.count ? " " + quote(k.addedLabels[i]) : "") }
                lines.append(item("first \(name) added: " + shown.joined(separator: ", ")))
            }
            if !k.removedExamples.isEmpty { lines.append(item("first \(name) removed: " + k.removedExamples.map(span).joined(separator: ", "))) }
        }
        if !r.topLabelChanges.isEmpty {
            if markdown { lines.append("") }
            let counted = r.labelChangesApproximate ? "more than \(formatCount(DiffReport.labelChangeCapacity)) distinct label changes; counts are lower bounds"
                                                    : "\(formatCount(r.distinctLabelChanges)) distinct label change\(r.distinctLabelChanges == 1 ? "" : "s")"
            lines.append((markdown ? "**Top label changes** " : "top label changes ") + "(\(counted)):")
            for c in r.topLabelChanges {
                lines.append(item("\(quote(c.from)) → \(quote(c.to)): \(formatCount(c.numbers)) number\(c.numbers == 1 ? "" : "s"), e.g. "
                                  + c.examples.map { code(String($0)) }.joined(separator: ", ")))
            }
        }
        if markdown { lines.append("") }
        for (name, g) in [("blocking", r.blockingRanges), ("identification", r.identificationRanges)] {
            guard g.added + g.removed + g.resized + g.relabeled + g.unchanged > 0 else { continue }
            lines.append(item("\(name) ranges: +\(g.added) added, −\(g.removed) removed, \(g.resized) resized, "
                              + "\(g.relabeled) relabeled, \(g.unchanged) unchanged"))
            for e in g.resizedExamples {
                lines.append(item("  resized \(span(e.old)) → \(span(e.new)) (\(signed(e.new.count - e.old.count)) numbers)"))
            }
            for e in g.addedExamples { lines.append(item("  added \(span(e)) (\(formatCount(e.count)) numbers)")) }
            for e in g.removedExamples { lines.append(item("  removed \(span(e)) (\(formatCount(e.count)) numbers)")) }
        }
        if markdown { lines.append("") }
        let delta = r.newDeviceEntries - r.oldDeviceEntries
        var device = "device entries: \(formatCount(r.oldDeviceEntries)) → \(formatCount(r.newDeviceEntries)) (\(signed(delta)))"
        if let budget = r.maxNumbers { device += ", " + budgetShare(r.newDeviceEntries, of: budget) }
        lines.append(markdown ? "**\(device)**" : device)
        switch r.budgetState {
        case .over: lines.append((markdown ? "> [!CAUTION]\n> " : "") + "over budget: a device would refuse to load NEW")
        case .near: lines.append((markdown ? "> [!WARNING]\n> " : "") + "near the budget: NEW needs 90% or more of --max-numbers")
        case .ok, .none: break
        }
        if !markdown { lines = lines.map { $0.replacingArrows() } }
        return lines.joined(separator: "\n") + "\n"
    }

    /// "100.03% of --max-numbers 10,010 (3 over)": as many decimals as it takes for a share
    /// that is not exactly the budget not to read as 100%.
    private func budgetShare(_ entries: Int64, of budget: Int64) -> String {
        guard budget > 0 else { return "--max-numbers 0 (\(formatCount(entries)) over)" }
        let share = Double(entries) / Double(budget) * 100
        var places = 1
        while places < 6, entries != budget, formatFixed(share, places) == formatFixed(100, places) { places += 1 }
        let over = entries > budget ? " (\(formatCount(entries - budget)) over)" : ""
        return "\(formatFixed(share, places))% of --max-numbers \(formatCount(budget))" + over
    }

    /// A list item; two leading spaces nest it under the item before.
    private func item(_ text: String) -> String {
        guard markdown else { return text }
        return text.hasPrefix("  ") ? "  - " + text.dropFirst(2) : "- " + text
    }
    private func code(_ text: String) -> String { markdown ? "`\(text)`" : text }
    private func span(_ r: NumberRange) -> String { code(r.first == r.last ? "\(r.first)" : "\(r.first)-\(r.last)") }
    private func quote(_ text: String) -> String {
        let safe = markdown ? text.replacingBackticks() : text
        return markdown ? "`\(safe)`" : "\"\(safe)\""
    }
    private func signed(_ n: Int64) -> String { (n >= 0 ? "+" : "-") + formatCount(n.magnitude) }
}

private extension String {
    func replacingBackticks() -> String { map { $0 == "`" ? "'" : String($0) }.joined() }

    /// Plain text keeps to ASCII: "->" and "-" for the report's arrows and minus signs.
    func replacingArrows() -> String { map { $0 == "→" ? "->" : $0 == "−" ? "-" : String($0) }.joined() }
}

extension DiffReport {
    var json: JSONValue {
        func kind(_ k: KindChanges) -> JSONValue {
            .object([("added", .int(k.added)), ("removed", .int(k.removed)), ("relabeled", .int(k.relabeled)),
                     ("deviceRemovals", .int(k.deviceRemovals)), ("deviceAdditions", .int(k.deviceAdditions)),
                     ("addedExamples", .array(k.addedExamples.enumerated().map { i, e -> JSONValue in
                         guard i < k.addedLabels.count else { return e.json }
                         return .object([("first", .int(e.first)), ("last", .int(e.last)), ("label", .string(k.addedLabels[i]))])
                     })),
                     ("removedExamples", .array(k.removedExamples.map(\.json)))])
        }
        func ranges(_ g: RangeChanges) -> JSONValue {
            .object([("added", .int(Int64(g.added))), ("removed", .int(Int64(g.removed))), ("resized", .int(Int64(g.resized))),
                     ("relabeled", .int(Int64(g.relabeled))), ("unchanged", .int(Int64(g.unchanged))),
                     ("addedExamples", .array(g.addedExamples.map(\.json))), ("removedExamples", .array(g.removedExamples.map(\.json))),
                     ("resizedExamples", .array(g.resizedExamples.map { .object([("old", $0.old.json), ("new", $0.new.json)]) }))])
        }
        let labels = topLabelChanges.map { c -> JSONValue in
            .object([("from", .string(c.from)), ("to", .string(c.to)), ("numbers", .int(c.numbers)),
                     ("examples", .array(c.examples.map { .int($0) }))])
        }
        return .object([
            ("old", .object([("index", .string(oldPath)), ("checksum", .string(hex(oldChecksum))), ("deviceEntries", .int(oldDeviceEntries))])),
            ("new", .object([("index", .string(newPath)), ("checksum", .string(hex(newChecksum))), ("deviceEntries", .int(newDeviceEntries))])),
            ("blocking", kind(blocking)), ("identification", kind(identification)),
            ("topLabelChanges", .array(labels)),
            ("distinctLabelChanges", labelChangesApproximate ? .null : .int(Int64(distinctLabelChanges))),
            ("labelChangesApproximate", .bool(labelChangesApproximate)),
            ("blockingRanges", ranges(blockingRanges)), ("identificationRanges", ranges(identificationRanges)),
            ("maxNumbers", maxNumbers.map { .int($0) } ?? .null), ("budget", .string(budgetState.rawValue)),
            ("seconds", .double(seconds)),
        ])
    }
}

private extension NumberRange {
    var json: JSONValue { .object([("first", .int(first)), ("last", .int(last))]) }
}
