#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CallDirReader

// `calldir-oneshot INDEX NUMBER`: one lookup through the reader library alone, for
// Benchmarks/scripts/oneshot.sh. It prints what `calldir lookup` prints for a listed number
// minus the formatting, so the difference between the two is what the CLI costs at start-up
// (argument parsing, the compiler's code and the Foundation, Dispatch and Concurrency runtimes
// that swift-argument-parser links), not the lookup.
let argv = CommandLine.unsafeArgv
guard CommandLine.argc == 3, let path = argv[1], let text = argv[2], let number = Int64(String(cString: text)) else {
    print("usage: calldir-oneshot INDEX NUMBER")
    exit(64)
}
do {
    let result = try CallDirIndex(path: String(cString: path)).lookup(number)
    print(result.label ?? (result.blocked != nil ? "blocked" : "unknown"))
    exit(result.isListed ? 0 : 1)
} catch {
    print("error: \(error)")
    exit(2)
}
