#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BenchmarkTools
import CallDirReader

// Times library lookups for the comparison script, the same way `baseline/cdb_bulk.c` and
// `baseline/sqlite_bulk.c` time their peers: read every query into memory, open the index,
// then time `passes` passes over the queries, with `lookup(_:)` per number (`one`, the
// default) or the batch `lookup(_:_:)` (`batch`). Prints one line:
//   lookups=N found=F best_seconds=S median_seconds=S
// The index is opened with `verify: true` (every checksum checked once, as a server does),
// so lookups skip the per-block CRC.

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    fail("usage: calldir-bulk INDEX QUERIES [PASSES [one|batch]]")
}
let passes = arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5
let batch = arguments.count > 4 && arguments[4] == "batch"

func readQueries(_ path: String) -> [Int64] {
    guard let file = fopen(path, "r") else { perror(path); exit(2) }
    defer { fclose(file) }
    var queries: [Int64] = []
    var line = [CChar](repeating: 0, count: 64)
    while fgets(&line, 64, file) != nil {
        queries.append(Int64(strtoll(line, nil, 10)))
    }
    return queries
}

let queries = readQueries(arguments[2])
do {
    let index = try CallDirIndex(path: arguments[1], verify: true)
    var times: [Double] = []
    var found = 0
    for _ in 0..<passes {
        found = 0
        let start = now()
        if batch {
            try queries.withUnsafeBufferPointer { try index.lookup($0) { if $0.isListed { found += 1 } } }
        } else {
            for q in queries where try index.lookup(q).isListed { found += 1 }
        }
        times.append(now() - start)
    }
    times.sort()
    print("lookups=\(queries.count) found=\(found) best_seconds=\(times[0]) median_seconds=\(times[times.count / 2])")
} catch {
    fail("calldir-bulk: \(error)")
}
