#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ListGenerator

let usage = """
    usage: calldir-gen list    --count N [--seed S] [--labels] [--shuffle] [--style plain|plus|formatted] [-o FILE]
           calldir-gen queries --count N [--seed S] --queries Q [--hits PERCENT] [-o FILE]

    list     N distinct North American numbers (1 NPA NXX XXXX), ascending unless --shuffle,
             one per line; --labels adds a TAB and a caller label (an identification list).
    queries  Q numbers to look up against the list that `list --count N --seed S` writes:
             PERCENT % of them (default 50) are on it, the rest are not; random order.
    The same arguments always give the same bytes. Output goes to stdout unless -o is given.
    """

func fail(_ message: String) -> Never {
    let text = "calldir-gen: \(message)\n\(usage)\n"
    _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress!, $0.count - 1) }
    exit(2)
}

/// `text` converted by `make`, or exit with `message`.
func parsed<T>(_ text: String?, _ message: String, _ make: (String) -> T?) -> T {
    guard let text, let value = make(text) else { fail(message) }
    return value
}

var arguments = CommandLine.arguments.dropFirst()
let mode = parsed(arguments.popFirst(), "say list or queries") { $0 == "list" || $0 == "queries" ? $0 : nil }
var count: Int?
var seed: UInt64 = 1
var labels = false
var shuffle = false
var style = NumberStyle.plain
var output: String?
var queryCount: Int?
var hits = 50
while let argument = arguments.popFirst() {
    let next = { arguments.popFirst() }
    switch argument {
    case "--count": count = parsed(next(), "--count takes a number") { Int($0) }
    case "--seed": seed = parsed(next(), "--seed takes a number") { UInt64($0) }
    case "--labels": labels = true
    case "--shuffle": shuffle = true
    case "--style": style = parsed(next(), "--style takes plain, plus or formatted") { NumberStyle(rawValue: $0) }
    case "-o", "--output": output = parsed(next(), "-o takes a path") { $0 }
    case "--queries": queryCount = parsed(next(), "--queries takes a number") { Int($0) }
    case "--hits": hits = parsed(next(), "--hits takes 0 to 100") { Int($0).flatMap { (0...100).contains($0) ? $0 : nil } }
    default: fail("unknown argument \(argument)")
    }
}
guard let count, count >= 0 else { fail("--count is required") }
guard Int64(count) <= NANPSpace.size else { fail("--count is above the \(NANPSpace.size) possible numbers") }

let fd = output.map { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) } ?? 1
guard fd >= 0 else { fail("cannot create \(output!): \(String(cString: strerror(errno)))") }
var writer = ListWriter(fd: fd, style: mode == "queries" ? .plain : style)
// Labels come from their own stream, so a labelled list has the same numbers as a plain one.
var labelRandom = SeededRandom(seed: seed ^ 0x4C41_4245_4C53)

if mode == "queries" {
    guard let queryCount, queryCount >= 0 else { fail("queries needs --queries Q") }
    let sorted = Array(SortedSample(count: count, seed: seed))
    for n in Queries.make(from: sorted, count: queryCount, hitPercent: hits, seed: seed) {
        writer.number(n)
        writer.endLine()
    }
} else if shuffle {
    var numbers = Array(SortedSample(count: count, seed: seed))
    var order = SeededRandom(seed: seed ^ 0x5348_5546_464C_45)
    order.shuffle(&numbers)
    for n in numbers {
        writer.number(n)
        if labels { writer.label(CallerLabels.all[CallerLabels.pick(&labelRandom)]) }
        writer.endLine()
    }
} else {
    for n in SortedSample(count: count, seed: seed) {
        writer.number(n)
        if labels { writer.label(CallerLabels.all[CallerLabels.pick(&labelRandom)]) }
        writer.endLine()
    }
}
writer.flush()
if fd != 1 { close(fd) }
