import CallDirReader

/// The entries of one kind a simulated device holds: sorted, disjoint runs of consecutive
/// numbers sharing a label id (0 for blocking), so an expanded range costs one run, not one
/// slot per number.
struct StoredRuns {
    struct Run: Equatable {
        var first: Int64
        var last: Int64
        var label: Int32
    }

    private(set) var runs: [Run] = []
    private(set) var count: Int64 = 0

    var isEmpty: Bool { runs.isEmpty }
    var lastNumber: Int64? { runs.last?.last }

    /// Adds `number` above every number held (callers check the order).
    mutating func append(_ number: Int64, label: Int32) {
        if let end = runs.indices.last, runs[end].last &+ 1 == number, runs[end].label == label {
            runs[end].last = number
        } else {
            runs.append(Run(first: number, last: number, label: label))
        }
        count += 1
    }

    /// Index of the first run ending at or above `number`, searching from `hint` onwards
    /// (callers asking in ascending order pass the previous answer: amortised O(1)).
    func firstRun(endingAtOrAbove number: Int64, from hint: Int = 0) -> Int {
        var i = hint
        if i < runs.count, runs[i].last < number, i + 8 < runs.count, runs[i + 8].last < number {
            return runs.firstIndex(endingAtOrAbove: number, from: i + 8) { $0.last }
        }
        while i < runs.count, runs[i].last < number { i += 1 }
        return i
    }

    /// The label id of `number`, or nil when it is not held.
    func label(of number: Int64) -> Int32? {
        let i = firstRun(endingAtOrAbove: number)
        return i < runs.count && runs[i].first <= number ? runs[i].label : nil
    }

    /// Removes `number` if held ("add X, remove X" within one request: `SimulatorState.remove`).
    mutating func remove(_ number: Int64) {
        let i = firstRun(endingAtOrAbove: number)
        guard i < runs.count, runs[i].first <= number else { return }  // not held: not an error
        let run = runs[i]
        count -= 1
        switch (run.first == number, run.last == number) {
        case (true, true): runs.remove(at: i)
        case (true, false): runs[i].first = number + 1
        case (false, true): runs[i].last = number - 1
        case (false, false):
            runs[i].last = number - 1
            runs.insert(Run(first: number + 1, last: run.last, label: run.label), at: i + 1)
        }
    }

    /// Removes every held number of `numbers` (ascending) in one pass over the runs: an
    /// update's thousands of removals from a million runs cost one copy, not one each.
    mutating func remove(sorted numbers: [Int64]) {
        guard !numbers.isEmpty, !runs.isEmpty else { return }
        var out: [Run] = []
        out.reserveCapacity(runs.count + numbers.count)
        var j = 0
        for var run in runs {
            while j < numbers.count, numbers[j] < run.first { j += 1 }
            while j < numbers.count, numbers[j] <= run.last {
                if numbers[j] > run.first { out.append(Run(first: run.first, last: numbers[j] - 1, label: run.label)) }
                run.first = numbers[j] + 1
                count -= 1
                j += 1
            }
            if run.first <= run.last { out.append(run) }
        }
        runs = out
    }

    mutating func removeAll() {
        runs.removeAll()
        count = 0
    }

    /// Adds every run of `other`, whose numbers are not held here.
    mutating func merge(_ other: StoredRuns) {
        guard let otherFirst = other.runs.first else { return }
        if let last = lastNumber, otherFirst.first <= last {
            var merged: [Run] = []
            merged.reserveCapacity(runs.count + other.runs.count)
            var i = 0
            var j = 0
            while i < runs.count || j < other.runs.count {
                let takeMine = j == other.runs.count || (i < runs.count && runs[i].first < other.runs[j].first)
                Self.push(takeMine ? runs[i] : other.runs[j], onto: &merged)
                if takeMine { i += 1 } else { j += 1 }
            }
            runs = merged
        } else {
            for run in other.runs { Self.push(run, onto: &runs) }
        }
        count += other.count
    }

    private static func push(_ run: Run, onto runs: inout [Run]) {
        if let end = runs.indices.last, runs[end].last &+ 1 == run.first, runs[end].label == run.label {
            runs[end].last = run.last
        } else {
            runs.append(run)
        }
    }
}
