import Foundation

/// The relative links of a set of Markdown documents (path relative to the package root ->
/// text), checked against each other and, for files that are not documents, the disk.
struct DocLinks {
    static let figureTable = "docs/BENCHMARKS.md"
    let documents: [String: String]
    /// Where files that are not in `documents` are looked for; nil: nowhere.
    var root: URL? = nil

    /// README.md, the Markdown files beside it and every Markdown file under docs/.
    static func readDocs(under root: URL) throws -> [String: String] {
        var paths = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".md") }
        let docs = root.appendingPathComponent("docs")
        let walk = FileManager.default.enumerator(atPath: docs.path)
        while let path = walk?.nextObject() as? String {
            if path.hasSuffix(".md") { paths.append("docs/" + path) }
        }
        var texts: [String: String] = [:]
        for path in paths { texts[path] = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) }
        return texts
    }

    func problems() -> [String] {
        let rows = Self.todayCells(of: documents[Self.figureTable] ?? "")
        let anchors = documents.mapValues(Self.anchors(of:))
        var found = Self.tableProblems(of: documents[Self.figureTable] ?? "").map { "\(Self.figureTable): \($0)" }
        for (path, text) in documents.sorted(by: { $0.key < $1.key }) {
            for (label, target) in Self.links(in: text) {
                if let problem = check(label: label, target: target, from: path, rows: rows, anchors: anchors) {
                    found.append("\(path): \(problem)")
                }
            }
        }
        return found
    }

    private func check(label: String, target: String, from path: String, rows: [String: String],
                       anchors: [String: Set<String>]) -> String? {
        if target.contains("://") || target.hasPrefix("mailto:") { return nil }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let file = parts[0].isEmpty ? path : Self.resolve(parts[0], from: path)
        guard documents[file] != nil || root.map({ FileManager.default.fileExists(atPath: $0.appendingPathComponent(file).path) }) == true
        else { return "link to \(target): no such file" }
        guard parts.count == 2, file.hasSuffix(".md") else { return nil }
        let fragment = parts[1]
        guard anchors[file]?.contains(fragment) == true else {
            return "link to \(target): no such heading or id there"
        }
        guard file == Self.figureTable, let today = rows[fragment], label.contains(where: \.isNumber) else { return nil }
        let quote = label.replacingOccurrences(of: "**", with: "")
        return today.replacingOccurrences(of: "**", with: "").contains(quote) ? nil
            : "quotes '\(quote)' from \(file)#\(fragment), whose figure reads '\(today)'"
    }

    /// `docs/X.md` for `X.md` linked from a file in docs/; `..` and `.` segments resolved.
    static func resolve(_ relative: String, from path: String) -> String {
        var segments = path.split(separator: "/").dropLast().map(String.init)
        for segment in relative.split(separator: "/").map(String.init) {
            if segment == ".." { _ = segments.popLast() } else if segment != "." { segments.append(segment) }
        }
        return segments.joined(separator: "/")
    }

    /// (text, target) of each inline link outside fenced code blocks; a link's text may wrap
    /// onto the next line (Markdown joins it with one space, and so does this).
    static func links(in text: String) -> [(String, String)] {
        var prose: [Substring] = []
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { fenced.toggle(); continue }
            if !fenced { prose.append(line) }
        }
        return prose.joined(separator: "\n").matches(of: /\[([^\]\n]+(?:\n[^\]\n]+)?)\]\(([^)\s]+)\)/).map {
            (String($0.output.1).split(whereSeparator: \.isWhitespace).joined(separator: " "), String($0.output.2))
        }
    }

    /// GitHub's anchors: each heading's slug (lower case, punctuation dropped, spaces to
    /// hyphens, `-1`, `-2` for repeats) and each `<a id="...">`.
    static func anchors(of text: String) -> Set<String> {
        var result = Set(text.matches(of: /<a id="([^"]+)"><\/a>/).map { String($0.output.1) })
        var seen: [String: Int] = [:]
        var fenced = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("```") { fenced.toggle() }
            guard !fenced, let heading = line.firstMatch(of: /^#{1,6} (.+)$/) else { continue }
            let slug = String(heading.output.1.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == " " })
                .replacingOccurrences(of: " ", with: "-")
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            result.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return result
    }

    /// Rows of "Today's figures" without an id (`<a id="...">` first), a repeated id, or
    /// another number of cells than the header's: a row merged in an older shape.
    static func tableProblems(of table: String) -> [String] {
        guard let start = table.range(of: "## Today's figures\n") else { return ["no \"## Today's figures\" section"] }
        let section = table[start.upperBound...].components(separatedBy: "\n## ")[0]
        let rows = section.split(separator: "\n").filter { $0.hasPrefix("|") }
        guard let header = rows.first else { return ["no table under \"## Today's figures\""] }
        func cells(_ row: Substring) -> Int {
            row.replacingOccurrences(of: "\\|", with: "").split(separator: "|", omittingEmptySubsequences: false).count
        }
        var ids = Set<String>(), found: [String] = []
        for row in rows.dropFirst(2) {
            guard let id = row.firstMatch(of: /^\| <a id="([^"]+)"><\/a>/)?.output.1 else {
                found.append("a row of \"Today's figures\" without an id: \(row.prefix(60))"); continue
            }
            if !ids.insert(String(id)).inserted { found.append("row id \(id) appears twice") }
            if cells(row) != cells(header) { found.append("row \(id) has not the header's \(cells(header) - 2) cells") }
        }
        return found
    }

    /// Row id -> "Today" cell of the figure table's rows.
    static func todayCells(of table: String) -> [String: String] {
        var cells: [String: String] = [:]
        for match in table.matches(of: /(?m)^\| <a id="([^"]+)"><\/a>[^|]*\| ([^|]+) \|/) {
            cells[String(match.output.1)] = String(match.output.2)
        }
        return cells
    }
}
