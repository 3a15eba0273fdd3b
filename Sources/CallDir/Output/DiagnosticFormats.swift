import CallDirReader

/// How `compile` (and `compile --check`) prints the problems it finds in lists: the default
/// `FILE:LINE: reason` (`Diagnostic.description`; also what the problem matcher in
/// `.github/calldir-problem-matcher.json` reads), GitHub workflow commands, a GitLab code
/// quality report, or JSON lines. The CLI holds one `DiagnosticFormatter` and hands it every
/// diagnostic as it is found; this file only turns them into text.
package enum ErrorFormat: String, Sendable, CaseIterable {
    case text, github, gitlab, json
}

/// GitHub Actions workflow commands (`::error file=F,line=L,title=T::message`), escaped as the
/// runner unescapes them: in the message `%` `\r` `\n` become `%25` `%0D` `%0A`; in a property
/// value `:` and `,` also become `%3A` and `%2C` (they separate properties).
package enum GitHubAnnotation {
    /// GitHub shows at most 10 error annotations per step: the first 9 problems are annotated
    /// and a 10th says how many more the job log lists.
    package static let limit = 10

    package static func escapeData(_ text: String) -> String {
        escape(text, property: false)
    }

    package static func escapeProperty(_ text: String) -> String {
        escape(text, property: true)
    }

    /// One `::error` command; properties that are nil are left out.
    package static func error(file: String?, line: Int?, title: String?, message: String) -> String {
        var properties: [String] = []
        if let file { properties.append("file=" + escapeProperty(file)) }
        if let line { properties.append("line=\(line)") }
        if let title { properties.append("title=" + escapeProperty(title)) }
        return "::error" + (properties.isEmpty ? "" : " " + properties.joined(separator: ",")) + "::" + escapeData(message)
    }

    private static func escape(_ text: String, property: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            case ":" where property: out += "%3A"
            case "," where property: out += "%2C"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension Diagnostic {
    /// A title for annotations and the check name of code-quality reports.
    package var title: String { "calldir: \(rule)" + (callKitError.map { " (CallKit error \($0))" } ?? "") }

    /// One line of `--error-format json`.
    package var json: JSONValue {
        .object([("file", .string(source)), ("line", .int(Int64(line))), ("rule", .string(rule)),
                 ("message", .string(message)), ("callKitError", callKitError.map { .int(Int64($0)) } ?? .null)])
    }

    /// An entry of a GitLab code quality report: a CallKit error (the device would refuse the
    /// list) is critical, any other rejected row major.
    package var codeQuality: JSONValue {
        .object([("description", .string(message)), ("check_name", .string(rule)), ("fingerprint", .string(fingerprint)),
                 ("severity", .string(callKitError == nil ? "major" : "critical")),
                 ("location", .object([("path", .string(source)), ("lines", .object([("begin", .int(Int64(line)))]))]))])
    }

    /// Stable across runs for the same problem at the same place: two FNV-1a 64-bit hashes of
    /// file, line, rule and message, as 32 hex digits (GitLab compares reports by it).
    package var fingerprint: String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in "\(source)\u{0}\(line)\u{0}\(rule)\u{0}\(message)".utf8 {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
            b = (b ^ UInt64(byte ^ 0x5c)) &* 0x100_0000_01b3
        }
        return hex(a) + hex(b)
    }
}

/// Turns diagnostics into the lines of one `ErrorFormat`, in order, and closes the run: the
/// GitHub cap and its summary annotation, the GitLab report (every diagnostic, so memory is
/// bounded by `--max-errors`), a fatal error that is not a list problem.
package struct DiagnosticFormatter {
    package let format: ErrorFormat
    package private(set) var count = 0
    private var held: Diagnostic?
    private var report: [JSONValue] = []

    package init(format: ErrorFormat) { self.format = format }

    /// What to print for `diagnostic` (stderr, or the JSON lines file).
    package mutating func line(for diagnostic: Diagnostic) -> String {
        count += 1
        switch format {
        case .text:
            return diagnostic.description
        case .gitlab:
            report.append(diagnostic.codeQuality)
            return diagnostic.description
        case .json:
            return diagnostic.json.rendered()
        case .github:
            if count < GitHubAnnotation.limit { return Self.annotation(diagnostic) }
            // The 10th is annotated at the end only if it is the last; the log lists them all.
            if count == GitHubAnnotation.limit { held = diagnostic }
            return diagnostic.description
        }
    }

    /// The closing lines once every diagnostic is in: for GitHub, the 10th problem or a summary
    /// of those past the cap, and an annotation for a fatal error that is not about rows
    /// (`fatal`: its text, nil when the run succeeded or failed only because of rows).
    package func closingLines(fatal: String? = nil) -> [String] {
        var lines: [String] = []
        switch format {
        case .github:
            if count == GitHubAnnotation.limit, let held {
                lines.append(Self.annotation(held))
            } else if count > GitHubAnnotation.limit {
                let more = count - (GitHubAnnotation.limit - 1)
                lines.append(GitHubAnnotation.error(file: nil, line: nil, title: "calldir: \(more) more problems",
                                                    message: "\(more) more problems are not annotated (GitHub shows \(GitHubAnnotation.limit) a step); the job log lists every one as FILE:LINE: reason"))
            }
            if let fatal { lines.append(GitHubAnnotation.error(file: nil, line: nil, title: "calldir", message: fatal)) }
        case .json:
            if let fatal { lines.append(JSONValue.object([("error", .string(fatal))]).rendered()) }
        case .text, .gitlab:
            break
        }
        return lines
    }

    /// The GitLab code quality report of every diagnostic seen (an empty array when none).
    package var codeQualityReport: String { JSONValue.array(report).rendered() + "\n" }

    static func annotation(_ d: Diagnostic) -> String {
        GitHubAnnotation.error(file: d.source, line: d.line, title: d.title, message: d.message)
    }
}
