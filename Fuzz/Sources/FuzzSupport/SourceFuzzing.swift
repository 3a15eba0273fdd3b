import CallDir

private let normalizer = try! NumberNormalizer(country: 1)

/// Reads `bytes` as an input list of `format` (through a file, as `calldir compile` does:
/// open, format check, gzip detection, line reading) and normalises every row, so the
/// parser's rows flow on into the normaliser. Errors are expected; crashes are findings.
public func fuzzSource(_ bytes: UnsafeRawBufferPointer, format: InputFormat, options: TextListOptions = .init()) {
    let path = ScratchFile.write(bytes)
    fuzzRows { body in try openSource(path: path, format: format, options: options).forEachRow(body) }
}

/// Rows of a parser that reads from memory (JSON and plist lists: the same parser code that
/// files go through, without the 2 MiB of stream buffers per input that make files slow
/// under AddressSanitizer), normalised like `fuzzSource`'s.
public func fuzzRows(_ parse: ((SourceRow) throws -> Void) throws -> Void) {
    do {
        try parse { row in
            _ = normalizer.normalize(row.number)
            if let label = row.label { _ = String(decoding: label, as: UTF8.self) }
        }
    } catch {
        _ = "\(error)"  // every error must describe itself without trapping
    }
}
