import CallDirReader

/// A strict reader of the Prometheus text exposition format (0.0.4), as much of it as /metrics
/// uses: `# HELP` / `# TYPE` lines and samples `name{label="value",...} number`. Tests check
/// with it that the exporter's page parses and what it says.
enum PrometheusText {
    /// A series: its name and labels (order-insensitive).
    struct Key: Hashable, Sendable {
        let name: String
        let labels: [String: String]

        init(name: String, labels: [(String, String)] = []) {
            self.name = name
            self.labels = Dictionary(labels, uniquingKeysWith: { _, last in last })
        }
    }

    /// A parsed page: every sample, and the type of every family that declared one.
    struct Page: Sendable {
        var samples: [Key: Double] = [:]
        var types: [String: String] = [:]
    }

    /// Parses a whole page; a malformed line is a `.badInput` error naming its line.
    static func parse(_ text: String) throws(CallDirError) -> Page {
        var page = Page()
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            if line.hasPrefix("#") {
                let words = line.split(separator: " ", maxSplits: 3)
                if words.count >= 4 && words[1] == "TYPE" { page.types[String(words[2])] = String(words[3]) }
                continue
            }
            guard let (key, value) = sample(Substring(line)) else {
                throw CallDirError(.badInput, "not a Prometheus sample line: \(line)", line: number + 1)
            }
            page.samples[key] = value
        }
        return page
    }

    private static func sample(_ line: Substring) -> (Key, Double)? {
        guard let space = line.lastIndex(of: " ") else { return nil }
        let series = line[..<space], number = line[line.index(after: space)...]
        guard let value = number == "+Inf" ? .infinity : Double(number) else { return nil }
        guard let brace = series.firstIndex(of: "{") else {
            return validName(series) ? (Key(name: String(series)), value) : nil
        }
        guard series.last == "}", validName(series[..<brace]),
              let labels = labels(series[series.index(after: brace)..<series.index(before: series.endIndex)])
        else { return nil }
        return (Key(name: String(series[..<brace]), labels: labels), value)
    }

    /// `a="x",b="y\"z"` into pairs, undoing the format's three escapes.
    private static func labels(_ text: Substring) -> [(String, String)]? {
        var pairs: [(String, String)] = []
        var rest = text
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "="), validName(rest[..<equals]),
                  rest[rest.index(after: equals)...].first == "\"" else { return nil }
            let name = String(rest[..<equals])
            var value = "", escaped = false, end: Substring.Index? = nil
            var i = rest.index(equals, offsetBy: 2)
            while i < rest.endIndex {
                let c = rest[i]
                if escaped { value.append(c == "n" ? "\n" : c); escaped = false }
                else if c == "\\" { escaped = true }
                else if c == "\"" { end = i; break }
                else { value.append(c) }
                i = rest.index(after: i)
            }
            guard let end else { return nil }
            pairs.append((name, value))
            rest = rest[rest.index(after: end)...]
            if rest.first == "," { rest = rest.dropFirst() } else if !rest.isEmpty { return nil }
        }
        return pairs
    }

    private static func validName(_ name: Substring) -> Bool {
        guard let first = name.first, !first.isNumber else { return false }
        return name.allSatisfy { $0 == "_" || $0 == ":" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
    }
}
