#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CallDirLookup
import CallDirReader

/// `calldir`, the front: a plain one-shot lookup (`calldir lookup [options] NUMBER...`) is
/// answered here, by an executable that links the reader library and nothing else; every
/// other command line, `--help`, `lookup -` and every usage error included, is handed to
/// `calldir-cli` (exec: same PID, same arguments), which documents and validates it.
///
/// Why two executables: start-up is most of a one-shot lookup. The full CLI links the
/// compiler, swift-argument-parser, Foundation, Dispatch and Concurrency, which cost about
/// 0.2 ms before `main` runs, and argument parsing by reflection costs 2 ms more
/// (docs/BENCHMARKS-LOG.md, "One-shot lookups").
@main
enum Main {
    static func main() {
        // A reader that leaves early (a FIFO, `| head`) makes a write fail with EPIPE, which
        // every output reports as exit 2 and cleans up after; SIGPIPE would kill the process
        // (exit 141) and leave its temporaries. Kept across the exec into calldir-cli.
        signal(SIGPIPE, SIG_IGN)
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let fast = FastLookup(arguments: arguments) { fast.run() }
        SiblingExecutable.exec("calldir-cli", arguments: arguments)
        exit(ExitStatus.error.rawValue)
    }
}
