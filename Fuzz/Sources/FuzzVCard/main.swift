import FuzzSupport

// Input list parser (.vcard): rows and their normalisation, through a file as compile reads it.
runFuzzer { data, size in
    fuzzSource(fuzzBytes(data, size), format: .vcard)
    return 0
}
