import CallDirNumbers
import CallDirReader
import CallDirWriter
/// The last stage before encoding, for one kind: enforces CallKit's strict ascending order
/// (error 3) and uniqueness (error 4), collapses repeats under --dedupe, drops allowed numbers
/// from blocking, gives labels their refs, and appends to the encoder. A struct, like the encoder it
/// owns while a kind is read, so the per-entry state needs no run-time exclusivity checks.
struct EntrySink {
    private let kind: EntryKind
    private(set) var encoder: NumberSetEncoder
    private let labels: LabelCollector
    private let allow: AllowList
    private let dedupe: Bool
    private let log: DiagnosticLog
    private let rejects: RejectLog
    /// Recovers a problem row's field as written when `accept` was not given it.
    private let writtenRows: WrittenRows?
    private var previous: Int64 = 0
    private var previousOrigin = Origin(raw: 0)
    /// The last label accepted, for --dedupe's conflicts and the message of a repeat with
    /// another label: borrowed from the caller's rows until `keepPreviousLabel` copies it
    /// (once a batch), as a copy per row cost 6% of a labelled compile.
    private var borrowedLabel: UnsafeRawBufferPointer?
    private var keptLabel: [UInt8] = []
    private(set) var duplicates = 0
    private(set) var labelConflicts = 0
    private(set) var allowed = 0

    init(kind: EntryKind, encoder: NumberSetEncoder, labels: LabelCollector, allow: AllowList, dedupe: Bool,
         log: DiagnosticLog, rejects: RejectLog, writtenRows: WrittenRows? = nil) {
        self.kind = kind
        self.encoder = encoder
        self.labels = labels
        self.allow = allow
        self.dedupe = dedupe
        self.log = log
        self.rejects = rejects
        self.writtenRows = writtenRows
    }

    var count: Int { encoder.count }

    @inline(__always)
    /// `labelHash`: the label's `LabelTable.hash` when the caller has it (computed here if not).
    /// `written`: the row's number field as read, when it was not plain digits (for messages).
    /// `keepsLabel`: the label's bytes go away after this call (a sort's merge), so keep a copy.
    mutating func accept(_ number: Int64, origin: Origin, label: UnsafeRawBufferPointer?, labelHash: UInt64? = nil,
                         written: UnsafeRawBufferPointer? = nil, keepsLabel: Bool = false) throws {
        if number <= previous {
            try misplaced(number, origin: origin, label: label, written: written)
            return
        }
        previous = number
        previousOrigin = origin
        if kind == .block, !allow.isEmpty, allow.contains(number) {
            allowed += 1
            try rejects.record(origin, reason: .allowed, text: String(number))
            return
        }
        var id: UInt32 = 0
        if kind == .identify, let label {
            id = try labels.ref(for: label, hash: labelHash ?? LabelTable.hash(label))
            borrowedLabel = label
            if keepsLabel { keepPreviousLabel() }
        }
        try encoder.append(number, label: id)
    }

    /// Copies the last label out of the caller's rows: call before their storage is reused
    /// (a batch handed back, a merge buffer refilled).
    mutating func keepPreviousLabel() {
        guard let borrowedLabel else { return }
        keptLabel.removeAll(keepingCapacity: true)
        keptLabel.append(contentsOf: borrowedLabel)
        self.borrowedLabel = nil
    }

    private func isPreviousLabel(_ label: UnsafeRawBufferPointer) -> Bool {
        if let borrowedLabel { return label.elementsEqual(borrowedLabel) }
        return label.elementsEqual(keptLabel)
    }

    /// A repeat or a number below the one before: the message shows the row as written
    /// (`'(201) 555-0100' (12015550100)`) and the flag that fixes it, so an annotation alone
    /// says what to do.
    private mutating func misplaced(_ number: Int64, origin: Origin, label: UnsafeRawBufferPointer?,
                                    written: UnsafeRawBufferPointer?) throws {
        if number == previous, dedupe {
            // A repeat collapsed by --dedupe is no message: nothing here may read the row again
            // (`WrittenRows` rereads its source up to the row), or a list's repeats would cost
            // a pass over the file each.
            duplicates += 1
            let conflict = kind == .identify && label.map { !isPreviousLabel($0) } ?? false
            if conflict { labelConflicts += 1 }
            let reason: RejectReason = conflict ? .labelConflict : .duplicate
            guard rejects.isListed else { return rejects.count(reason) }
            let text = "\(number)" + (label.map { "," + String(decoding: $0, as: UTF8.self) } ?? "")
            try rejects.record(origin, reason: reason, text: text)
            return
        }
        let place = log.place(previousOrigin, relativeTo: origin)
        let text = written.map { DiagnosticLog.shown($0) } ?? writtenRows?.text(at: origin, kind: kind) ?? "\(number)"
        let row = text == "\(number)" || text == "+\(number)" ? text : "'\(text)' (\(number))"
        if number == previous {
            // The same number with two labels: say so, since --dedupe then keeps the first label.
            let other = kind == .identify ? label.flatMap { isPreviousLabel($0) ? nil : $0 } : nil
            let labels = other.map {
                " with another label ('\(String(decoding: $0, as: UTF8.self))'; \(place) has '\(String(decoding: borrowedLabel.map(Array.init) ?? keptLabel, as: UTF8.self))')"
            } ?? ""
            let fix = other == nil ? "--dedupe keeps one of each" : "--dedupe keeps the first row's label"
            try log.report(origin, rule: "duplicate-entries",
                           "\(row) repeats \(place)\(labels): duplicate entries (CallKit error 4); \(fix)",
                           callKitError: 4, text: text)
            return
        }
        try log.report(origin, rule: "entries-out-of-order",
                       "\(row) is not above \(previous) (\(place)): entries out of order (CallKit error 3); --sort accepts any order",
                       callKitError: 3, text: text)
    }
}
