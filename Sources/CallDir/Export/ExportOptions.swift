/// The list formats `Exporter` writes.
package enum ExportFormat: String, CaseIterable, Sendable {
    /// One entry per line: blocking numbers, or `number<TAB>label`; ranges as `#` patterns
    /// where exact, else `FIRST-LAST`. Compiling it gives the same index.
    case text
    /// CSV with a header: `number`, or `number,label` (labels quoted when needed).
    case csv
    /// vCard 4.0: one card per label (or one card of blocked numbers), numbers as TEL.
    case vcard
    /// Saracroche JSON: `{"version", "name", "patterns": [{"name", "action", "pattern"}]}`.
    case saracroche
    /// A Begone XML plist: an array of dicts {number, title, category, addNational}.
    case begone
    /// Apple Live Caller ID Lookup: the `InputIdentities` text protobuf `ConstructDatabase` reads.
    case liveCallerID = "live-caller-id"
    /// The block `KeywordDatabase` `ConstructDatabase` writes (one row per number, 0x01 / 0x00).
    case liveCallerIDBlock = "live-caller-id-block"
    /// The identity `KeywordDatabase` (serialized `CallIdentity` per identified number).
    case liveCallerIDIdentity = "live-caller-id-identity"

    /// Formats without wildcards: every number of a range is listed.
    var expandsRanges: Bool { self == .vcard || isLiveCallerID }
    var isLiveCallerID: Bool { self == .liveCallerID || self == .liveCallerIDBlock || self == .liveCallerIDIdentity }
    /// Formats that hold both kinds in one file.
    var holdsBothKinds: Bool { self == .saracroche || isLiveCallerID }
}

/// Which entries of the index an export takes.
package enum ExportKind: String, CaseIterable, Sendable {
    case block
    case identify
    case all
}

/// How ranges are written by the text and CSV formats.
package enum ExportRanges: String, CaseIterable, Sendable {
    /// `#` patterns where a range is exactly one, else `FIRST-LAST`.
    case keep
    /// Every number of every range, one per line (for tools without ranges).
    case expand
}

/// Live Caller ID's `IdentityCategory`.
package enum IdentityCategory: String, CaseIterable, Sendable {
    case unspecified, person, business

    var number: UInt32 {
        switch self {
        case .unspecified: return 0
        case .person: return 1
        case .business: return 2
        }
    }
}

package struct ExportOptions: Sendable {
    package var format: ExportFormat
    /// Nil: both kinds for the formats that hold both, else the one kind the index has.
    package var kind: ExportKind?
    package var ranges: ExportRanges = .keep
    /// Refuse an export that would list more numbers than this once ranges are expanded.
    package var maxNumbers: Int64 = 10_000_000
    /// The list's name (Saracroche `name`, the card or title of blocking entries).
    package var name = "calldir"
    /// Live Caller ID `cache_expiry_minutes` of every identity (0: not set).
    package var cacheExpiryMinutes: UInt32 = 0
    /// Live Caller ID category of every identity.
    package var category: IdentityCategory = .unspecified

    package init(format: ExportFormat) { self.format = format }
}

/// What an export wrote.
package struct ExportSummary: Sendable {
    /// Rows, cards or protobuf rows written.
    package var records = 0
    package var bytes = 0
}
