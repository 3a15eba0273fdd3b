import FuzzSupport

// Input list parser (.vcard: folding, TEL parameters, FN/ORG): rows and their normalisation,
// as compile reads a file but from memory with small buffers.
runFuzzer { data, size in
    fuzzSource(fuzzBytes(data, size), format: .vcard)
    return 0
}
