import CallDirReader
/// Identification rows in an order that makes a compile (without `--sort`) number the labels
/// exactly as the index does.
///
/// A compile numbers labels in order of first use: in row order, exact numbers and ranges
/// alike (`LabelTable`). Exact numbers must stay ascending; range rows may go anywhere. So
/// the rows are written ascending, except that a range whose label is not due yet waits, and
/// a label that is due before an exact number's label is introduced by pulling its first
/// range forward. A label no entry uses (its only range lost to a narrower one at compile
/// time) cannot be reproduced: it is left out with a warning, and a recompiled index
/// numbers the labels after it one lower (the answers are the same).
struct LabelOrder {
    private let ranges: [(range: NumberRange, label: String)]
    private let ids: [String: Int]
    private let labels: [String]
    /// Labels 0..<due have been introduced.
    private var due = 0
    private var emitted: [Bool]
    private var cursor = 0
    private var waiting: [Int] = []
    /// Range indices by label id, ascending.
    private let rangesOfLabel: [[Int]]
    private(set) var warnings: [String] = []

    init(index: CallDirIndex) {
        ranges = index.identifiedRangeList
        labels = index.allLabels
        var ids: [String: Int] = [:]
        for (i, label) in labels.enumerated() where ids[label] == nil { ids[label] = i }
        self.ids = ids
        emitted = Array(repeating: false, count: ranges.count)
        var byLabel = [[Int]](repeating: [], count: labels.count)
        for (i, r) in ranges.enumerated() { if let id = ids[r.label] { byLabel[id].append(i) } }
        rangesOfLabel = byLabel
    }

    typealias Row = (_ range: NumberRange?, _ number: Int64, _ label: String) throws -> Void

    /// Call for each exact identified number, ascending.
    mutating func exact(_ number: Int64, _ label: String, _ row: Row) throws {
        while cursor < ranges.count, ranges[cursor].range.first < number {
            try offer(cursor, row)
            cursor += 1
        }
        let id = ids[label] ?? 0
        if id >= due {
            try introduce(upTo: id, row)  // may introduce id, and more, through waiting ranges
            if due == id {  // this row introduces it; ranges waiting for it follow
                due = id + 1
                try row(nil, number, label)
                return try releaseWaiting(row)
            }
        }
        try row(nil, number, label)
    }

    /// Call once after the last exact number.
    mutating func finish(_ row: Row) throws {
        while cursor < ranges.count { try offer(cursor, row); cursor += 1 }
        try introduce(upTo: labels.count, row)
    }

    private mutating func offer(_ i: Int, _ row: Row) throws {
        guard !emitted[i] else { return }
        if (ids[ranges[i].label] ?? 0) <= due { try emit(i, row) } else { waiting.append(i) }
    }

    private mutating func emit(_ i: Int, _ row: Row) throws {
        emitted[i] = true
        if ids[ranges[i].label] ?? 0 == due { due += 1 }
        try row(ranges[i].range, ranges[i].range.first, ranges[i].label)
        try releaseWaiting(row)
    }

    /// Introduces labels due..<id through their first ranges.
    private mutating func introduce(upTo id: Int, _ row: Row) throws {
        while due < id {
            if let i = rangesOfLabel[due].first(where: { !emitted[$0] }) {
                waiting.removeAll { $0 == i }
                try emit(i, row)
            } else {
                warnings.append("label '\(labels[due])' is used by no entry and is left out; a recompiled index "
                                + "numbers the labels after it one lower (its answers are the same)")
                due += 1
            }
        }
    }

    private mutating func releaseWaiting(_ row: Row) throws {
        while let at = waiting.firstIndex(where: { (ids[ranges[$0].label] ?? 0) <= due }) {
            let i = waiting.remove(at: at)
            if !emitted[i] { try emit(i, row) }
        }
    }
}
