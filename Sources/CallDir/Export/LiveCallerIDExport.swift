/// Apple Live Caller ID Lookup (iOS 18+) datasets, ranges expanded (the format has none).
///
/// What this relies on, from apple/live-caller-id-lookup-example and apple/pir-service-example
/// (Sources/ConstructDatabase: ConstructDatabase.swift, protobuf/InputIdentities.proto,
/// protobuf/CallIdentity.proto) and swift-homomorphic-encryption's KeywordDatabase:
/// - input: text protobuf `InputIdentities { map<string, InputCallIdentity> identities = 1; }`,
///   `InputCallIdentity { string name = 1; uint32 cache_expiry_minutes = 2; bool block = 3;
///   IdentityCategory category = 4; }`, keyed by the number as "+E164";
/// - `ConstructDatabase` writes, for every input number, a block row `KeywordDatabaseRow
///   { bytes keyword = 1; bytes value = 2; }` with keyword = the key's UTF-8 bytes and value
///   one byte 1 (block) or 0, and an identity row whose value is the serialized `CallIdentity
///   { string name = 1; Icon icon = 2; uint32 cache_expiry_minutes = 3; IdentityCategory
///   category = 4; }` when that identity is not the default one; each file is one
///   `KeywordDatabase { repeated KeywordDatabaseRow rows = 1; }`, which on the wire is just
///   its rows one after the other, so it streams.
/// A number's name is its label (exact, else range) and `block` whether it is blocked.
/// `--kind` selects the numbers listed; rows come blocked numbers first, then the others.
struct LiveCallerIDExport {
    let exporter: Exporter
    let out: ExportOutput

    func write(_ kind: ExportKind) throws -> ExportSummary {
        var summary = ExportSummary()
        let walk = EntryWalk(index: exporter.index)
        if kind != .identify {
            try walk.expanded(.blocking) { n, label, _ in try entry(n, name: label, block: true, &summary) }
        }
        if kind != .block {
            try walk.expanded(.identification) { n, label, blocked in
                if kind == .all && blocked { return }
                try entry(n, name: label, block: blocked, &summary)
            }
        }
        return summary
    }

    private func entry(_ number: Int64, name: String?, block: Bool, _ summary: inout ExportSummary) throws {
        let key = "+\(number)"
        let options = exporter.options
        switch options.format {
        case .liveCallerIDBlock:
            try out.write(ProtobufWire.keywordRow(keyword: Array(key.utf8), value: [block ? 1 : 0]))
            summary.records += 1
        case .liveCallerIDIdentity:
            var identity: [UInt8] = []
            if let name, !name.isEmpty { ProtobufWire.appendBytes(field: 1, Array(name.utf8), to: &identity) }
            ProtobufWire.appendVarint(field: 3, UInt64(options.cacheExpiryMinutes), to: &identity)
            ProtobufWire.appendVarint(field: 4, UInt64(options.category.number), to: &identity)
            guard !identity.isEmpty else { return }  // the default identity gets no row
            try out.write(ProtobufWire.keywordRow(keyword: Array(key.utf8), value: identity))
            summary.records += 1
        default:
            var text = "identities {\n  key: \"\(key)\"\n  value {\n"
            if let name, !name.isEmpty { text += "    name: \(Escaping.protobufTextQuoted(name))\n" }
            if options.cacheExpiryMinutes > 0 { text += "    cache_expiry_minutes: \(options.cacheExpiryMinutes)\n" }
            if block { text += "    block: true\n" }
            if options.category != .unspecified {
                text += "    category: IDENTITY_CATEGORY_\(options.category.rawValue.uppercased())\n"
            }
            try out.write(text + "  }\n}\n")
            summary.records += 1
        }
    }
}

/// The protobuf wire format, by hand: what these two messages need is a few lines, not a
/// dependency (https://protobuf.dev/programming-guides/encoding/).
enum ProtobufWire {
    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// A varint field (wire type 0); proto3 leaves out zero values.
    static func appendVarint(field: Int, _ value: UInt64, to out: inout [UInt8]) {
        guard value != 0 else { return }
        appendVarint(UInt64(field << 3), to: &out)
        appendVarint(value, to: &out)
    }

    /// A length-delimited field (wire type 2).
    static func appendBytes(field: Int, _ bytes: [UInt8], to out: inout [UInt8]) {
        appendVarint(UInt64(field << 3 | 2), to: &out)
        appendVarint(UInt64(bytes.count), to: &out)
        out.append(contentsOf: bytes)
    }

    /// One `rows` element of a `KeywordDatabase`: field 1 holding a `KeywordDatabaseRow`.
    static func keywordRow(keyword: [UInt8], value: [UInt8]) -> [UInt8] {
        var row: [UInt8] = []
        appendBytes(field: 1, keyword, to: &row)
        appendBytes(field: 2, value, to: &row)
        var out: [UInt8] = []
        appendBytes(field: 1, row, to: &out)
        return out
    }
}
