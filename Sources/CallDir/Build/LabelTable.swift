/// Deduplicated identification labels, numbered in order of first use. Memory grows with the
/// distinct labels, not with the entries (lists use a few dozen labels for millions of numbers).
final class LabelTable {
    private var ids: [String: UInt32] = [:]
    private(set) var labels: [String] = []
    private var lastBytes: [UInt8] = []
    private var lastID: UInt32 = 0

    var count: Int { labels.count }

    /// The id of `bytes` (valid UTF-8, already checked), adding it when new.
    func intern(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        // Neighbouring rows often share a label: skip hashing for a repeat.
        if !labels.isEmpty, bytes.elementsEqual(lastBytes) { return lastID }
        let label = String(decoding: bytes, as: UTF8.self)
        let id: UInt32
        if let known = ids[label] {
            id = known
        } else {
            id = UInt32(labels.count)
            ids[label] = id
            labels.append(label)
        }
        lastBytes = Array(bytes)
        lastID = id
        return id
    }

    func intern(_ label: String) -> UInt32 {
        var label = label
        return label.withUTF8 { intern(UnsafeRawBufferPointer($0)) }
    }

    /// Section bytes: u32 count, (count + 1) u32 offsets into the text, then the UTF-8 text.
    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.appendLE(UInt32(labels.count))
        var offset: UInt32 = 0
        out.appendLE(offset)
        for label in labels {
            offset += UInt32(label.utf8.count)
            out.appendLE(offset)
        }
        for label in labels { out.append(contentsOf: label.utf8) }
        return out
    }
}

/// Checks a label the way CallKit and a lock screen need it.
enum LabelRule {
    /// Nil when fine, else the reason the row is rejected.
    static func problem(_ bytes: UnsafeRawBufferPointer) -> String? {
        var trimmed = bytes[...]
        while let f = trimmed.first, f == 0x20 || f == 0x09 { trimmed = trimmed.dropFirst() }
        guard !trimmed.isEmpty else { return "empty-label" }
        guard bytes.count <= IndexFormat.maxLabelBytes else { return "label-too-long" }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { return "label-control-character" }
            case .emptyInput: break loop
            case .error: return "label-invalid-utf8"
            }
        }
        return nil
    }

    static func explanation(_ reason: String) -> String {
        switch reason {
        case "empty-label": return "identification entries need a non-empty label"
        case "label-too-long": return "labels are at most \(IndexFormat.maxLabelBytes) UTF-8 bytes"
        case "label-control-character": return "labels must not contain control characters"
        case "label-invalid-utf8": return "labels must be valid UTF-8"
        default: return reason
        }
    }
}
