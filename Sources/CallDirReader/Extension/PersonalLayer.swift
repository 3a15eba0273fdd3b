/// The user's own layer on the phone (FORMAT.md, "Personal layer"): numbers the user allows
/// (with an optional expiry), blocks and labels, applied on top of the installed list at load
/// time (`PersonalOverlay`). It lives in the shared folder beside the index, is written
/// atomically, is never sent anywhere, and survives list updates (the list never rewrites it).
///
/// The text format, one rule a line, shared by the CLI and the library:
///
///     calldir-personal 1
///     # a comment
///     allow +33 1 62 00 00 00 ; until 1764327600
///     allow +33162######
///     block +33 6 12 34 56 78
///     label +41 21 560 00 00 ; Dentist
///
/// Numbers, `#` patterns and `FIRST - LAST` ranges are read by `NumberNormalizer` (the
/// phone's region for national numbers); `;` never occurs in a number, so it separates the
/// expiry (`until` Unix seconds, UTC) or the label text.
public struct PersonalLayer: Equatable, Sendable {
    /// The first line of `personal.txt`, naming the format and its version.
    public static let header = "calldir-personal 1"

    /// Numbers never blocked nor relabelled, until `expiry` (Unix seconds; nil: for good).
    public struct Allowance: Equatable, Sendable {
        /// The numbers allowed (one, a `#` pattern or a range).
        public var numbers: NumberRange
        /// When the allowance ends, in Unix seconds (nil: never).
        public var expiry: Int64?
        /// Allows `numbers` until `expiry` (nil: for good).
        public init(_ numbers: NumberRange, expiry: Int64? = nil) {
            self.numbers = numbers
            self.expiry = expiry
        }
    }

    /// The user's own label for `numbers`.
    public struct Label: Hashable, Sendable {
        /// The numbers the label applies to.
        public var numbers: NumberRange
        /// The label CallKit shows for them.
        public var text: String
        /// Labels `numbers` with `text`.
        public init(_ numbers: NumberRange, text: String) {
            self.numbers = numbers
            self.text = text
        }
    }

    /// Numbers the user allows (never blocked nor relabelled while the allowance lasts).
    public var allowed: [Allowance]
    /// Numbers the user blocks, whatever the list says.
    public var blocked: [NumberRange]
    /// The user's own labels, over the list's.
    public var labels: [Label]

    /// A layer of these rules (empty by default).
    public init(allowed: [Allowance] = [], blocked: [NumberRange] = [], labels: [Label] = []) {
        self.allowed = allowed
        self.blocked = blocked
        self.labels = labels
    }

    /// Parses the text format. Throws `.badInput` naming the line of the first bad rule: a
    /// missing header, an unknown verb, a number the normaliser refuses, a bad expiry, an
    /// empty label or labels that overlap (which one would the phone show?).
    public init(parsing text: String, normalizer: NumberNormalizer, path: String = "personal layer") throws {
        self.init()
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let trimmed = line.trimmingASCIISpaces()
            if lineNumber == 1 {
                guard trimmed == Self.header else {
                    throw CallDirError(.badInput, "the first line must be \"\(Self.header)\" (a personal layer, FORMAT.md)", path: path, line: 1)
                }
                continue
            }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            do {
                try parseRule(trimmed, normalizer: normalizer)
            } catch let error as RuleError {
                throw CallDirError(.badInput, error.message, path: path, line: lineNumber)
            }
        }
    }

    struct RuleError: Error { var message: String }

    private mutating func parseRule(_ rule: Substring, normalizer: NumberNormalizer) throws {
        guard let space = rule.firstIndex(of: " ") else { throw RuleError(message: "\"\(rule)\": a rule is VERB NUMBER (allow, block or label)") }
        let verb = rule[..<space]
        let rest = rule[rule.index(after: space)...]
        let parts = rest.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        let numbers = try Self.numbers(parts[0], normalizer)
        let extra = parts.count > 1 ? parts[1].trimmingASCIISpaces() : nil
        switch verb {
        case "allow":
            allowed.append(Allowance(numbers, expiry: try extra.map(Self.expiry)))
        case "block":
            guard extra == nil else { throw RuleError(message: "block takes no \"; ...\" part") }
            blocked.append(numbers)
        case "label":
            guard let extra, !extra.isEmpty else { throw RuleError(message: "label needs \"; TEXT\" after the number") }
            if let other = labels.first(where: { $0.numbers.first <= numbers.last && numbers.first <= $0.numbers.last }) {
                throw RuleError(message: "\(Self.field(numbers)) overlaps the label \"\(other.text)\" of \(Self.field(other.numbers)): give each number one label")
            }
            labels.append(Label(numbers, text: String(extra)))
        default:
            throw RuleError(message: "unknown verb \"\(verb)\": allow, block or label")
        }
    }

    private static func numbers(_ field: Substring, _ normalizer: NumberNormalizer) throws -> NumberRange {
        switch normalizer.normalize(String(field)) {
        case .success(.number(let n)): return NumberRange(first: n, last: n)
        case .success(.range(let r)): return r
        case .failure(let reason): throw RuleError(message: "\"\(field.trimmingASCIISpaces())\": \(reason) (docs/NUMBERS.md)")
        }
    }

    private static func expiry(_ text: Substring) throws -> Int64 {
        guard text.hasPrefix("until "), let seconds = Int64(text.dropFirst(6).trimmingASCIISpaces()), seconds >= 0 else {
            throw RuleError(message: "\"\(text)\": an allowance ends with \"; until SECONDS\" (Unix time, UTC)")
        }
        return seconds
    }

    /// The layer in the text format, which `init(parsing:)` reads back to an equal layer.
    public var text: String {
        var lines = [Self.header]
        for a in allowed { lines.append("allow " + Self.field(a.numbers) + (a.expiry.map { " ; until \($0)" } ?? "")) }
        for b in blocked { lines.append("block " + Self.field(b)) }
        for l in labels { lines.append("label " + Self.field(l.numbers) + " ; " + l.text) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `+E164` for one number, `+FIRST - +LAST` for a range (any range, not only patterns).
    static func field(_ r: NumberRange) -> String {
        r.first == r.last ? "+\(r.first)" : "+\(r.first) - +\(r.last)"
    }
}

extension SharedFolder {
    /// The personal layer, beside the index.
    public var personalPath: String { layerPath + "/personal.txt" }

    /// The personal layer in the folder; an empty one when there is none.
    public func readPersonalLayer(normalizer: NumberNormalizer) throws -> PersonalLayer {
        guard let bytes = try read(personalPath, limit: 1 << 22) else { return PersonalLayer() }
        return try PersonalLayer(parsing: String(decoding: bytes, as: UTF8.self), normalizer: normalizer, path: personalPath)
    }

    /// Publishes `layer` atomically: a reader sees the old layer or the new one.
    public func writePersonalLayer(_ layer: PersonalLayer) throws {
        try writeAtomically(Array(layer.text.utf8), to: personalPath)
    }
}

extension Substring {
    func trimmingASCIISpaces() -> Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
        return s
    }
}
