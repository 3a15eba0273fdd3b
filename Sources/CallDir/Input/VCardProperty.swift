/// One unfolded vCard content line, `[group.]NAME[;PARAM=...]:VALUE`, split into ranges.
struct VCardProperty {
    /// The property name without its group, e.g. `TEL` of `item1.TEL;TYPE=CELL:...`.
    let name: UnsafeRawBufferPointer
    /// The value after the first colon that is not inside a quoted parameter value.
    let value: Range<Int>

    /// Nil for a line without a colon (blank lines, junk between cards).
    init?(_ line: UnsafeRawBufferPointer) {
        let colon: UInt8 = 0x3A, semicolon: UInt8 = 0x3B, dot: UInt8 = 0x2E, quote: UInt8 = 0x22
        var index = 0
        var nameStart = 0
        while index < line.count && line[index] != colon && line[index] != semicolon {
            if line[index] == dot { nameStart = index + 1 }
            index += 1
        }
        let nameEnd = index
        var inQuotes = false
        while index < line.count {
            let byte = line[index]
            if byte == quote {
                inQuotes.toggle()
            } else if byte == colon && !inQuotes {
                break
            }
            index += 1
        }
        guard index < line.count else { return nil }
        name = UnsafeRawBufferPointer(rebasing: line[nameStart..<nameEnd])
        value = (index + 1)..<line.count
    }

    /// Whether the name is `upper` (given in upper case), ignoring case.
    func `is`(_ upper: StaticString) -> Bool {
        Self.equalsIgnoringCase(name, upper)
    }

    /// ASCII case-insensitive comparison against an upper-case literal.
    static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ upper: StaticString) -> Bool {
        guard bytes.count == upper.utf8CodeUnitCount else { return false }
        let expected = upper.utf8Start
        for index in 0..<bytes.count {
            var byte = bytes[index]
            if byte >= 0x61 && byte <= 0x7A { byte -= 0x20 }
            if byte != expected[index] { return false }
        }
        return true
    }

    /// Removes a `tel:` URI scheme (any case) and the URI's parameters after `;`.
    static func stripTelScheme(_ value: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard value.count >= 4, equalsIgnoringCase(UnsafeRawBufferPointer(rebasing: value[0..<4]), "TEL:")
        else { return value }
        var end = 4
        while end < value.count && value[end] != 0x3B { end += 1 }
        return UnsafeRawBufferPointer(rebasing: value[4..<end])
    }

    /// Appends the text value with vCard escapes resolved (`\n` `\N` newline, `\,` `\;` `\\`;
    /// any other escaped character stands for itself). With `firstComponentOnly`, stops at the
    /// first unescaped `;` (ORG is `Company;Department;...`).
    static func unescape(_ value: UnsafeRawBufferPointer, firstComponentOnly: Bool, into out: inout [UInt8]) {
        var index = 0
        while index < value.count {
            let byte = value[index]
            if byte == 0x5C && index + 1 < value.count {  // backslash
                let next = value[index + 1]
                out.append(next == 0x6E || next == 0x4E ? 0x0A : next)
                index += 2
                continue
            }
            if byte == 0x3B && firstComponentOnly { return }
            out.append(byte)
            index += 1
        }
    }
}
