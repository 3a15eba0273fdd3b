import CallDirReader

/// Everything `calldir verify` checks in a delta: every section CRC and the trailer, every
/// number block decoded (ascending, counts as the directories say), the added identification
/// numbers each with its own stream label, every label decoded and valid, NEW's metadata
/// consistent with what the delta says it connects.
package struct DeltaVerifier {
    package let delta: DeltaFile

    package func verifyAll() throws {
        try SectionTable.checkAllCRCs(delta.sections, bytes: delta.file.bytes, checksum: delta.checksum, path: delta.path)
        for set in [delta.removedBlocked, delta.addedBlocked, delta.removedIdentified] {
            var cursor = delta.cursor(set)
            while try cursor.next() != nil {}
        }
        var cursor = delta.cursor(delta.addedIdentified)
        var position = 0
        var text: [UInt8] = []
        while try cursor.next() != nil {
            guard cursor.labelID == LabelRef.stream(position) else {
                throw CallDirError(.corruptIndex, "\(delta.addedIdentified.name): entry \(position) does not use its own label",
                                   path: delta.path)
            }
            try delta.label(cursor.labelID, into: &text)
            try checkLabel(text, what: "added label \(position)")
            position += 1
        }
        for id in 0..<delta.labels.sharedCount {
            try delta.label(UInt32(id), into: &text)
            try checkLabel(text, what: "range label \(id)")
        }
    }

    private func checkLabel(_ text: [UInt8], what: String) throws {
        if let problem = text.withUnsafeBytes({ LabelRule.problem($0) }) {
            throw CallDirError(.corruptIndex, "delta: \(what) is invalid (\(problem.rawValue))", path: delta.path)
        }
    }
}
