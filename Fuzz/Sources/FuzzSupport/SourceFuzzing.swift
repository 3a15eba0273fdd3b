@testable import CallDir
import CallDirReader

private let normalizer = try! NumberNormalizer(country: 1)

/// Reads `bytes` as an input list of `format`, as `calldir compile` reads a file (format
/// check, gzip detection, line reading, parser) but from memory (`InputFile(bytes:)`) and
/// with `ReadBuffers.small`: kilobytes of buffers per input instead of 2.3 MiB, which under
/// AddressSanitizer cost far more than parsing a short input. Every row is normalised, so the
/// parser's rows flow on into the normaliser. Errors are expected; crashes are findings.
public func fuzzSource(_ bytes: UnsafeRawBufferPointer, format: InputFormat, options: TextListOptions = .init()) {
    fuzzRows { body in
        try openSource(bytes: Array(bytes), name: "fuzz-input", format: format, options: options,
                       buffers: .small).forEachRow(body)
    }
}

/// Rows of a parser (`fuzzSource`'s, or a JSON or plist parser over a `ByteCursor` in memory),
/// each normalised.
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
