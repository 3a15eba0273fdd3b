/// Where the user's contacts come from: every phone number of every contact, as written. On
/// an iPhone, `ContactStoreSource` in CallDirCallKit (`CNContactStore`); here and in apps that
/// keep their own contacts, `VCardContacts`. Contacts are exceptions: never blocked, never
/// relabelled by the list (iOS shows the contact's name anyway).
public protocol ContactsSource {
    /// Calls `body` with each phone number as the contact card holds it.
    func forEachPhoneNumber(_ body: (String) throws -> Void) throws
}

extension ContactsSource {
    /// The contacts' numbers normalised with `normalizer` (the phone's region, for numbers
    /// written nationally), ascending and once each. A number the normaliser refuses (a
    /// short code, a typo) is skipped and counted in `skipped`: it can match no caller ID.
    public func numbers(normalizer: NumberNormalizer, skipped: inout Int) throws -> [Int64] {
        var numbers: [Int64] = []
        try forEachPhoneNumber { written in
            if case .success(.number(let n)) = normalizer.normalize(written) { numbers.append(n) } else { skipped += 1 }
        }
        numbers.sort()
        var unique: [Int64] = []
        unique.reserveCapacity(numbers.count)
        for n in numbers where unique.last != n { unique.append(n) }
        return unique
    }
}

/// The `TEL` values of a vCard file (3.0 and 4.0; what Contacts exports).
///
/// A minimal reader of its own, not the compiler's `VCardSource`: that one lives in `CallDir`,
/// which an extension must not link (docs/MODULES.md), and it reads labels, gzip and stdin that
/// contacts do not need. Same rules for what it reads: folded lines are unfolded, property
/// names are case-insensitive and may carry a group (`item1.TEL`), parameters are skipped,
/// a `tel:` prefix and its URI parameters (`;ext=5`) are removed.
package struct VCardContacts: ContactsSource {
    /// The vCard file read (the App Group's `contacts.vcf`).
    package let path: String
    /// Files larger than this are refused (a phone's contacts are a few MiB at most).
    package static let sizeLimit = 64 << 20

    /// The contacts of the vCard file at `path`; nothing is read until they are asked for.
    package init(path: String) {
        self.path = path
    }

    package func forEachPhoneNumber(_ body: (String) throws -> Void) throws {
        guard let bytes = try SharedFolder(path: ".").read(path, limit: Self.sizeLimit) else {
            throw CallDirError(.io, "no such file", path: path)
        }
        for line in Self.unfoldedLines(String(decoding: bytes, as: UTF8.self)) {
            if let value = Self.telValue(line) { try body(value) }
        }
    }

    /// Logical lines: a line starting with a space or TAB continues the previous one.
    static func unfoldedLines(_ text: String) -> [String] {
        var lines: [String] = []
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = Substring(raw)
            if line.last == "\r" { line.removeLast() }
            if let first = line.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1] += line.dropFirst()
            } else {
                lines.append(String(line))
            }
        }
        return lines
    }

    /// The value of a `TEL` property line, without `tel:` and URI parameters; nil otherwise.
    static func telValue(_ line: String) -> String? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        var name = line[..<colon]
        if let semicolon = name.firstIndex(of: ";") { name = name[..<semicolon] }
        if let dot = name.lastIndex(of: ".") { name = name[name.index(after: dot)...] }
        guard name.uppercased() == "TEL" else { return nil }
        var value = line[line.index(after: colon)...]
        if value.lowercased().hasPrefix("tel:") {
            value = value.dropFirst(4)
            if let semicolon = value.firstIndex(of: ";") { value = value[..<semicolon] }
        }
        return String(value)
    }
}
