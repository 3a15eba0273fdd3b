import FuzzSupport

// Input lists as compile reads them, from memory with small buffers: format detection
// (text/CSV, and the others when the input looks like them), gzip sniffing, line reading, the
// CSV parser, rows normalised.
runFuzzer { data, size in
    fuzzSource(fuzzBytes(data, size), format: .auto)
    return 0
}
