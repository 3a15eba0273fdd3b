import CallDirNumberTypes

/// Everything `calldir compile` can be asked to do. Sources of one kind are read in order and,
/// without `sort`, must be ascending across files as well as within them.
public struct CompileOptions: Sendable {
    /// Lists of numbers to block, read in order.
    public var blockSources: [SourceSpec] = []
    /// Lists of numbers to identify, each with a label.
    public var identifySources: [SourceSpec] = []
    /// Numbers and ranges that must never be blocked.
    public var allowSources: [SourceSpec] = []
    /// Where the index is published (atomically: a temporary file renamed on success).
    public var output: String
    /// Calling code for national numbers (nil: numbers must carry their country code).
    public var country: Int?
    /// The region `--country` named (`CX`), whose own rules read national numbers; nil: the
    /// calling code's main region's.
    public var region: String?
    /// Accept what CallKit accepts without the per-country rules (`--lenient`).
    public var lenient = false
    /// Stop after this many problems (validation errors, or rejected rows in strict mode).
    public var maxErrors = 20
    /// Count and skip rows that cannot be normalised instead of failing.
    public var skipInvalid = false
    /// Write every rejected row (file:line, reason, text) here.
    public var rejectsPath: String?
    /// Accept any order: external merge sort within `memoryBudget`, spilling under `temporaryFolder`.
    public var sort = false
    /// Collapse repeats of a number into one entry (first source wins for labels).
    public var dedupe = false
    /// What a compile with `sort` may use in all (peak RSS): the sort's buffers get what is
    /// left after the process itself and, for identification, the label tables
    /// (`Compiler.sortBudget`).
    public var memoryBudget = 64 << 20
    /// The folder for the sort's spill files and the index's temporary file.
    public var temporaryFolder = "/tmp"
    /// Fail when a device would have to load more entries than this (ranges counted by size).
    public var maxNumbers: Int64?
    /// Fail when a device would load fewer entries than this (`--min-numbers`).
    public var minNumbers: Int64?
    /// Keep only numbers libphonenumber calls valid (`--valid-only`), and of these types only
    /// (`--types`, `NumberType` names; implies valid-only).
    public var validOnly = false
    /// The number types to keep (`--types`, names from `numberTypeNames`); empty keeps every type.
    public var types: [String] = []
    /// The names `types` takes: libphonenumber's number types.
    public static var numberTypeNames: [String] { NumberType.allCases.map(\.rawValue) }
    /// Without `country`, the digits are E.164 on purpose (`--international`): a list whose
    /// numbers look national compiles (with a warning) instead of failing.
    public var international = false
    /// Publish an index without entries (`--allow-empty`); by default that fails.
    public var allowEmpty = false
    /// Unix seconds to record as the build time (0: none, keeping output reproducible).
    public var buildTime: Int64 = 0
    /// Validate only (`compile --check`): every source read and every rule applied as in a
    /// compile, the index built in a nameless scratch file under `temporaryFolder` and never
    /// published; no stale temporaries are swept. The rejects list, when asked for, is written.
    public var check = false

    /// Options for a compile to `output`, with every other setting at its default.
    public init(output: String) { self.output = output }
}

/// Where rows come from.
public enum SourceSpec: Sendable {
    /// A file path (`-` for stdin), format detected from its content unless given.
    case file(String, format: InputFormat = .auto, options: TextListOptions = .init())
    /// `PATH:QUERY` for a SQLite database.
    case sqlite(String)
    /// A JSON list whose objects say their kind (`"action": "block"` or `"identify"`, as in
    /// Saracroche's object form): put it in both `blockSources` and `identifySources`, and
    /// each kind reads its objects (objects without an action are blocking entries).
    case list(String)

    /// The source's name as diagnostics give it (`<stdin>` for `-`).
    public var displayName: String {
        switch self {
        case .file(let path, _, _): return path == "-" ? "<stdin>" : path
        case .sqlite(let spec): return spec
        case .list(let path): return path == "-" ? "<stdin>" : path
        }
    }

    /// Opens the source for reading rows of `kind`: a JSON list yields the objects whose
    /// `action` is that kind (`.file`: or have none), other formats every row.
    func open(for kind: EntryKind) throws -> any EntrySource {
        let actions = kind == .allow ? nil : (kind: kind, takesUnmarked: true)
        switch self {
        case .file(let path, let format, let options):
            return try openSource(path: path, format: format, options: options, actions: actions)
        case .sqlite(let spec): return try SQLiteSource(spec: spec)
        case .list(let path):
            return try openSource(path: path, format: .json, actions: (kind: kind, takesUnmarked: kind == .block))
        }
    }
}

/// The kinds of entry an index holds.
package enum EntryKind: String, Sendable {
    case block
    case identify
    case allow
}
