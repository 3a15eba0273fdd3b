/// A problem found in an input list, located by source and line.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    /// The input's name: a path, `<stdin>`, or `db.sqlite:SELECT ...`.
    public var source: String
    /// The 1-based line (or SQLite row) the problem is on.
    public var line: Int
    /// Stable rule name: `entries-out-of-order`, `duplicate-entries`, or a reject reason.
    public var rule: String
    /// What is wrong and how to fix it, for people.
    public var message: String
    /// The CallKit error this problem would cause on a device, when there is one.
    public var callKitError: Int?
    /// The row's number field as read (at most 60 bytes; invalid UTF-8 replaced), or the
    /// number the rule is about.
    public var text: String?

    public var description: String { "\(source):\(line): \(message)" }
}

/// Where a row came from, packed for the hot path: source index << 40 | line.
struct Origin: Comparable {
    var raw: UInt64
    init(source: Int, line: Int) { raw = UInt64(source) << 40 | UInt64(min(line, (1 << 40) - 1)) }
    init(raw: UInt64) { self.raw = raw }
    var source: Int { Int(raw >> 40) }
    var line: Int { Int(raw & ((1 << 40) - 1)) }
    static func < (a: Origin, b: Origin) -> Bool { a.raw < b.raw }
}

/// Collects problems up to a limit; past it, compiling stops.
final class DiagnosticLog {
    let limit: Int
    let sourceNames: [String]
    private let onDiagnostic: (Diagnostic) -> Void
    private(set) var count = 0
    private(set) var tally = ProblemTally()
    /// The sources problems were found in, by index.
    private(set) var sourcesWithProblems: Set<Int> = []

    init(limit: Int, sourceNames: [String], onDiagnostic: @escaping (Diagnostic) -> Void) {
        self.limit = max(1, limit)
        self.sourceNames = sourceNames
        self.onDiagnostic = onDiagnostic
    }

    struct LimitReached: Error {}

    func noteNationalNumber() { tally.sawNationalNumbers = true }

    func report(_ origin: Origin, rule: String, _ message: String, callKitError: Int? = nil, text: String? = nil) throws {
        count += 1
        tally.add(rule)
        sourcesWithProblems.insert(origin.source)
        onDiagnostic(Diagnostic(source: sourceNames[origin.source], line: origin.line, rule: rule,
                                message: message, callKitError: callKitError, text: text))
        if count >= limit { throw LimitReached() }
    }

    /// A row's field for a message: at most 60 bytes, control characters replaced (never
    /// echoed to a terminal).
    static func shown(_ text: UnsafeRawBufferPointer) -> String {
        String(String.UnicodeScalarView(String(decoding: text.prefix(60), as: UTF8.self).unicodeScalars.map {
            $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) ? "\u{FFFD}" : $0
        }))
    }

    /// "line 41" in the same source, else "other.txt:41".
    func place(_ origin: Origin, relativeTo current: Origin) -> String {
        origin.source == current.source ? "line \(origin.line)" : "\(sourceNames[origin.source]):\(origin.line)"
    }
}
