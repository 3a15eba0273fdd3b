@testable import CallDir
import FuzzSupport

// The XML plist parser (Begone's dicts of number and title) read from memory; the rows are
// normalised. File reading and format detection are covered by FuzzTextList.
runFuzzer { data, size in
    let bytes = fuzzBytes(data, size)
    fuzzRows { try PlistListParser(memory: bytes, name: "fuzz-input").parse($0) }
    return 0
}
