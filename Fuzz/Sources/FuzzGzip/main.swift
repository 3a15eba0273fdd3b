import FuzzSupport

// The gzip stream reader (header, inflate, trailer CRC and length, concatenated members) under
// the text parser. Inputs always start with the gzip magic, so every one reaches the inflater.
runFuzzer { data, size in
    var bytes: [UInt8] = [0x1F, 0x8B]
    let input = fuzzBytes(data, size)
    bytes += input.starts(with: bytes) ? Array(input.dropFirst(2)) : Array(input)
    bytes.withUnsafeBytes { fuzzSource($0, format: .text) }
    return 0
}
