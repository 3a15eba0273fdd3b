/// Checks a label the way CallKit and a lock screen need it.
package enum LabelRule {
    /// Nil when fine, else the reason the row is rejected.
    package static func problem(_ bytes: UnsafeRawBufferPointer) -> String? {
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

    package static func explanation(_ reason: String) -> String {
        switch reason {
        case "empty-label": return "identification entries need a non-empty label"
        case "label-too-long": return "labels are at most \(IndexFormat.maxLabelBytes) UTF-8 bytes"
        case "label-control-character": return "labels must not contain control characters"
        case "label-invalid-utf8": return "labels must be valid UTF-8"
        default: return reason
        }
    }
}
