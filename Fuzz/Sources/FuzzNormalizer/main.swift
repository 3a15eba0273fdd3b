import CallDirReader
import FuzzSupport

// The normaliser: a number field as bytes and as a String must get the same answer, under
// each country setting (none, NANP, France, Hungary's two-digit trunk prefix, lenient), and
// the message of a rejection (`explain`, which normalises the field again) never traps.
let normalizers = [try! NumberNormalizer(), try! NumberNormalizer(country: 1), try! NumberNormalizer(country: 33),
                   try! NumberNormalizer(country: 36), try! NumberNormalizer(country: 1, lenient: true)]

runFuzzer { data, size in
    let bytes = fuzzBytes(data, size)
    let text = String(decoding: bytes, as: UTF8.self)
    let isUTF8 = text.utf8.elementsEqual(bytes)
    for normalizer in normalizers {
        let fromBytes = normalizer.normalize(bytes)
        if case .failure(let reason) = fromBytes { _ = normalizer.explain(bytes, reason) }
        if isUTF8 {
            let fromString = normalizer.normalize(text)
            precondition("\(fromBytes)" == "\(fromString)", "bytes and String disagree: \(fromBytes) vs \(fromString)")
        }
    }
    return 0
}
