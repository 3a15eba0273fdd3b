/// Checks a label the way CallKit and a lock screen need it.
package enum LabelRule {
    /// Nil when fine, else the reason the row is rejected.
    package static func problem(_ bytes: UnsafeRawBufferPointer) -> RejectReason? {
        var trimmed = bytes[...]
        while let f = trimmed.first, f == 0x20 || f == 0x09 { trimmed = trimmed.dropFirst() }
        guard !trimmed.isEmpty else { return .emptyLabel }
        guard bytes.count <= IndexFormat.maxLabelBytes else { return .labelTooLong }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { return .labelControlCharacter }
            case .emptyInput: break loop
            case .error: return .labelInvalidUTF8
            }
        }
        return nil
    }
}
