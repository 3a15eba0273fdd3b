import CallDirReader
import FuzzSupport

// The normaliser: a number field as bytes and as a String must get the same answer, under
// each country setting (none, NANP, France).
let normalizers = [try! NumberNormalizer(), try! NumberNormalizer(country: 1), try! NumberNormalizer(country: 33),
                   try! NumberNormalizer(country: 1, checksNANP: false)]

runFuzzer { data, size in
    let bytes = fuzzBytes(data, size)
    let text = String(decoding: bytes, as: UTF8.self)
    let isUTF8 = text.utf8.elementsEqual(bytes)
    for normalizer in normalizers {
        let fromBytes = normalizer.normalize(bytes)
        if isUTF8 {
            let fromString = normalizer.normalize(text)
            precondition("\(fromBytes)" == "\(fromString)", "bytes and String disagree: \(fromBytes) vs \(fromString)")
        }
    }
    return 0
}
