#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CallDirLookup

/// `calldir`, the front: a plain one-shot lookup (`calldir lookup [options] NUMBER...`) is
/// answered here, by an executable that links the reader library and nothing else; every
/// other command line, `--help`, `lookup -` and every usage error included, is handed to
/// `calldir-cli` (exec: same PID, same arguments), which documents and validates it.
///
/// Why two executables: start-up is most of a one-shot lookup. The full CLI links the
/// compiler, swift-argument-parser, Foundation, Dispatch and Concurrency, which cost about
/// 0.2 ms before `main` runs, and argument parsing by reflection costs 2 ms more
/// (docs/BENCHMARKS.md, "One-shot lookups").
@main
enum Main {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let fast = FastLookup(arguments: arguments) { fast.run() }
        SiblingExecutable.exec("calldir-cli", arguments: arguments)
        exit(2)
    }
}
