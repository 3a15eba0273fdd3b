@testable import CallDir
import FuzzSupport

// The JSON list parser (arrays of objects, Saracroche's {"patterns": [...]}) read from memory;
// the rows are normalised. File reading and format detection are covered by FuzzTextList.
runFuzzer { data, size in
    let bytes = fuzzBytes(data, size)
    fuzzRows { try JSONListParser(memory: bytes, name: "fuzz-input").parse($0) }
    return 0
}
