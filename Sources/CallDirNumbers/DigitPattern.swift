/// A national prefix for parsing with a transform rule or `$` (AR, BR, JP, GA, MG, SM, NF),
/// compiled once into a small backtracking program over digits: Python `re`'s semantics as
/// libphonenumber uses them (a match anchored at the start, alternatives in order, greedy
/// quantifiers, the transform rule's `\1` for group 1), with no `Regex`, no `String` and no
/// allocation per number. The syntax is what the metadata's prefixes use: digits, `[...]`
/// classes with ranges, `\d`, `(...)`, `(?:...)`, `|`, `?`, `*`, `+`, `{m}`, `{m,n}`, `$`;
/// anything else does not compile (nil), which `everyRegexPrefixCompiles` refuses.
struct DigitPattern: Sendable {
    enum Op: Sendable, Equatable {
        /// One digit whose bit is set in the mask.
        case digit(UInt16)
        /// Try the first branch, then the second.
        case split(Int, Int)
        case jump(Int)
        /// Record the position in capture slot n (group n / 2 + 1 starts at even n).
        case save(Int)
        /// The end of the number (`$`).
        case end
        case match
    }

    /// Parsed form (`parse`), for tests that generate matching numbers. Not kept in a compiled
    /// pattern: the patterns live in a global for the process, and LeakSanitizer (scripts/fuzz)
    /// does not see an indirect enum's boxes through the tagged pointers of a multi-payload
    /// enum, so a kept tree reads as a leak in every harness that normalises a number.
    indirect enum Node: Sendable {
        case digits(UInt16)
        case sequence([Node])
        case alternatives([Node])
        case group(Int?, Node)
        case repeated(Node, min: Int, max: Int?)
        case end
    }

    static let maxGroups = 4
    let program: [Op]
    let groupCount: Int
    /// The transform rule: a digit (0-9), or -n for group n.
    let transform: [Int]

    /// The expression's tree and its number of capture groups, or nil when it does not compile.
    static func parse(_ pattern: String) -> (node: Node, groups: Int)? {
        var parser = Parser(Array(pattern.utf8))
        guard let node = parser.alternatives(), parser.atEnd, parser.groups <= Self.maxGroups else { return nil }
        return (node, parser.groups)
    }

    init?(_ pattern: String, transform rule: String) {
        guard let (node, groups) = Self.parse(pattern), let transform = Self.transform(rule, groups: groups) else { return nil }
        groupCount = groups
        self.transform = transform
        var program: [Op] = []
        Self.emit(node, into: &program)
        program.append(.match)
        self.program = program
    }

    private static func transform(_ rule: String, groups: Int) -> [Int]? {
        var out: [Int] = []
        var bytes = rule.utf8.makeIterator()
        while let byte = bytes.next() {
            if byte &- 0x30 < 10 { out.append(Int(byte &- 0x30)); continue }
            guard byte == 0x5C, let next = bytes.next(), next &- 0x31 < 9, Int(next &- 0x30) <= groups else { return nil }
            out.append(-Int(next &- 0x30))
        }
        return out
    }

    /// libphonenumber's `_maybe_strip_national_prefix_carrier_code` up to the length test:
    /// nil when the prefix does not match, else the transformed number (the digits after the
    /// match, behind the transform rule when its last group took part).
    func strip(_ number: Digits) -> Digits? {
        let count = number.literal
        guard count <= Digits.maxAccumulated else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Digits.maxAccumulated) { digits in
            var value = number.value
            for i in stride(from: count - 1, through: 0, by: -1) {
                digits[i] = UInt8(truncatingIfNeeded: value % 10)
                value /= 10
            }
            let input = UnsafeBufferPointer(rebasing: digits[0..<count])
            var slots = SIMD8<Int32>(repeating: -1)
            guard let matched = program.withUnsafeBufferPointer({ run($0, 0, 0, input, &slots) }) else { return nil }
            var out = Digits(value: 0, literal: 0, wildcards: 0)
            if !transform.isEmpty, groupCount > 0, slots[2 * (groupCount - 1)] >= 0 {
                for item in transform {
                    if item >= 0 { out.append(UInt8(item)); continue }
                    let start = Int(slots[2 * (-item - 1)]), end = Int(slots[2 * (-item - 1) + 1])
                    if start >= 0 { for i in start..<end { out.append(input[i]) } }
                }
            }
            for i in matched..<count { out.append(input[i]) }
            return out.literal > Digits.maxAccumulated ? nil : out
        }
    }

    /// The end of the first match from `pc` at `position` in backtracking order, nil for none.
    private func run(_ program: UnsafeBufferPointer<Op>, _ pc: Int, _ position: Int,
                     _ input: UnsafeBufferPointer<UInt8>, _ slots: inout SIMD8<Int32>) -> Int? {
        var pc = pc, position = position
        while true {
            switch program[pc] {
            case .digit(let mask):
                guard position < input.count, mask >> input[position] & 1 == 1 else { return nil }
                position += 1
                pc += 1
            case .split(let first, let second):
                if let end = run(program, first, position, input, &slots) { return end }
                pc = second
            case .jump(let target):
                pc = target
            case .save(let slot):
                let old = slots[slot]
                slots[slot] = Int32(position)
                if let end = run(program, pc + 1, position, input, &slots) { return end }
                slots[slot] = old
                return nil
            case .end:
                guard position == input.count else { return nil }
                pc += 1
            case .match:
                return position
            }
        }
    }

    private static func emit(_ node: Node, into program: inout [Op]) {
        switch node {
        case .digits(let mask):
            program.append(.digit(mask))
        case .sequence(let items):
            for item in items { emit(item, into: &program) }
        case .alternatives(let branches):
            var jumps: [Int] = []
            for (i, branch) in branches.enumerated() {
                let split = program.count
                if i < branches.count - 1 { program.append(.split(split + 1, -1)) }
                emit(branch, into: &program)
                if i < branches.count - 1 {
                    jumps.append(program.count)
                    program.append(.jump(-1))
                    program[split] = .split(split + 1, program.count)
                }
            }
            for jump in jumps { program[jump] = .jump(program.count) }
        case .group(let index?, let body):
            program.append(.save(2 * (index - 1)))
            emit(body, into: &program)
            program.append(.save(2 * (index - 1) + 1))
        case .group(nil, let body):
            emit(body, into: &program)
        case .repeated(let body, let min, let max?):
            for _ in 0..<min { emit(body, into: &program) }
            var splits: [Int] = []
            for _ in min..<max {
                splits.append(program.count)
                program.append(.split(program.count + 1, -1))
                emit(body, into: &program)
            }
            for split in splits { program[split] = .split(split + 1, program.count) }
        case .repeated(let body, let min, nil):
            for _ in 0..<min { emit(body, into: &program) }
            let loop = program.count
            program.append(.split(loop + 1, -1))
            emit(body, into: &program)
            program.append(.jump(loop))
            program[loop] = .split(loop + 1, program.count)
        case .end:
            program.append(.end)
        }
    }

    /// Recursive descent over the pattern's bytes; nil on anything outside the syntax.
    private struct Parser {
        let bytes: [UInt8]
        var at = 0
        var groups = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { at == bytes.count }
        private var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

        mutating func alternatives() -> Node? {
            var branches: [Node] = []
            repeat {
                if !branches.isEmpty { at += 1 }  // the `|`
                guard let branch = sequence() else { return nil }
                branches.append(branch)
            } while peek == UInt8(ascii: "|")
            return branches.count == 1 ? branches[0] : .alternatives(branches)
        }

        private mutating func sequence() -> Node? {
            var items: [Node] = []
            while let byte = peek, byte != UInt8(ascii: "|"), byte != UInt8(ascii: ")") {
                guard let atom = atom(), let item = quantified(atom) else { return nil }
                items.append(item)
            }
            return items.count == 1 ? items[0] : .sequence(items)
        }

        private mutating func atom() -> Node? {
            guard let byte = peek else { return nil }
            at += 1
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return .digits(1 << UInt16(byte - 0x30))
            case UInt8(ascii: "$"): return .end
            case UInt8(ascii: "\\"):
                guard peek == UInt8(ascii: "d") else { return nil }
                at += 1
                return .digits(0x3FF)
            case UInt8(ascii: "["): return characterClass()
            case UInt8(ascii: "("):
                var index: Int? = nil
                if peek == UInt8(ascii: "?") {
                    guard at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: ":") else { return nil }
                    at += 2
                } else {
                    groups += 1
                    index = groups
                }
                guard let body = alternatives(), peek == UInt8(ascii: ")") else { return nil }
                at += 1
                return .group(index, body)
            default: return nil
            }
        }

        private mutating func characterClass() -> Node? {
            var mask: UInt16 = 0
            let negated = peek == UInt8(ascii: "^")
            if negated { at += 1 }
            while let byte = peek, byte != UInt8(ascii: "]") {
                at += 1
                if byte == UInt8(ascii: "\\") {
                    guard peek == UInt8(ascii: "d") else { return nil }
                    at += 1
                    mask |= 0x3FF
                    continue
                }
                guard byte &- 0x30 < 10 else { return nil }
                var high = byte
                if peek == UInt8(ascii: "-"), at + 1 < bytes.count, bytes[at + 1] &- 0x30 < 10 {
                    high = bytes[at + 1]
                    at += 2
                }
                guard high >= byte else { return nil }
                for digit in byte...high { mask |= 1 << UInt16(digit - 0x30) }
            }
            guard peek == UInt8(ascii: "]") else { return nil }
            at += 1
            return .digits(negated ? ~mask & 0x3FF : mask)
        }

        private mutating func quantified(_ atom: Node) -> Node? {
            guard let byte = peek else { return atom }
            let consumes: Bool
            if case .digits = atom { consumes = true } else { consumes = false }
            switch byte {
            case UInt8(ascii: "?"): at += 1; return .repeated(atom, min: 0, max: 1)
            case UInt8(ascii: "*"), UInt8(ascii: "+"):
                guard consumes else { return nil }  // a loop over what may match nothing
                at += 1
                return .repeated(atom, min: byte == UInt8(ascii: "+") ? 1 : 0, max: nil)
            case UInt8(ascii: "{"):
                at += 1
                guard let min = number() else { return nil }
                var max = min
                if peek == UInt8(ascii: ",") {
                    at += 1
                    guard let value = number(), value >= min else { return nil }
                    max = value
                }
                guard peek == UInt8(ascii: "}"), max <= 32 else { return nil }
                at += 1
                return .repeated(atom, min: min, max: max)
            default: return atom
            }
        }

        private mutating func number() -> Int? {
            var value: Int? = nil
            while let byte = peek, byte &- 0x30 < 10 {
                value = (value ?? 0) * 10 + Int(byte - 0x30)
                at += 1
            }
            return value
        }
    }
}
