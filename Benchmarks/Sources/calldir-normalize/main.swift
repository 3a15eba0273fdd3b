#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BenchmarkTools
import CallDirNumberTypes
import CallDirReader

// Times the normaliser on formatted numbers, as issue 33 asks: each line of FILE is
// `CODE<TAB>FIELD` (CODE the --country, 0 for none), e.g. written by
// Benchmarks/scripts/gen-formatted.py (libphonenumber's NATIONAL and INTERNATIONAL formats of
// valid numbers of 60 regions). `calldir-normalize FILE [TOTAL]` normalises TOTAL fields
// (default 10,000,000, cycling through the file) three ways, each timed on one core:
//   plain    the fields' E.164 digits without '+' and without --country (today's fast path)
//   parse    the formatted fields with their --country (libphonenumber's parse)
//   typed    the same, then libphonenumber's validity and type from the DFA tables
// and prints one line per way: `NAME numbers=N accepted=A seconds=S per_second=R`.

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { fail("usage: calldir-normalize FILE [TOTAL]") }
let total = arguments.count > 2 ? Int(arguments[2]) ?? 10_000_000 : 10_000_000

/// The fields, as bytes in one buffer, with their normaliser.
struct Corpus {
    var bytes: [UInt8] = []
    var fields: [(start: Int, count: Int, normalizer: Int)] = []
    var normalizers: [NumberNormalizer] = []
}

func load(_ path: String) -> (formatted: Corpus, plain: Corpus) {
    guard let file = fopen(path, "r") else { fail("cannot open \(path)") }
    defer { fclose(file) }
    var formatted = Corpus(), plain = Corpus()
    var byCode: [Int: Int] = [:]
    plain.normalizers = [try! NumberNormalizer()]
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, file) != nil {
        let text = String(cString: line).split(separator: "\n").first.map(String.init) ?? ""
        let parts = text.split(separator: "\t", maxSplits: 1)
        guard parts.count == 2, let code = Int(parts[0]) else { continue }
        if byCode[code] == nil {
            byCode[code] = formatted.normalizers.count
            formatted.normalizers.append(try! NumberNormalizer(country: code == 0 ? nil : code))
        }
        let field = Array(parts[1].utf8)
        formatted.fields.append((formatted.bytes.count, field.count, byCode[code]!))
        formatted.bytes += field
        guard case .success(.number(let n)) = formatted.normalizers[byCode[code]!].normalize(String(parts[1])) else { continue }
        let digits = Array(String(n).utf8)
        plain.fields.append((plain.bytes.count, digits.count, 0))
        plain.bytes += digits
    }
    return (formatted, plain)
}

func run(_ name: String, _ corpus: Corpus, typed: Bool) {
    var accepted = 0
    var kinds = 0
    let start = now()
    corpus.bytes.withUnsafeBytes { buffer in
        var i = 0
        for _ in 0..<total {
            let f = corpus.fields[i]
            i = i + 1 == corpus.fields.count ? 0 : i + 1
            let field = UnsafeRawBufferPointer(rebasing: buffer[f.start..<(f.start + f.count)])
            guard case .success(.number(let n)) = corpus.normalizers[f.normalizer].normalize(field) else { continue }
            accepted += 1
            // type.index, not hashValue: SipHash would cost more than the type itself
            if typed, let type = NumberTypes.type(ofE164: n) { kinds &+= type.index & 1 | 1 }
        }
    }
    let seconds = now() - start
    print("\(name) numbers=\(total) accepted=\(accepted) typed=\(kinds) seconds=\(seconds) per_second=\(Int(Double(total) / seconds))")
}

let (formatted, plain) = load(arguments[1])
guard !formatted.fields.isEmpty, !plain.fields.isEmpty else { fail("no fields in \(arguments[1])") }
run("plain", plain, typed: false)
run("parse", formatted, typed: false)
run("typed", formatted, typed: true)
