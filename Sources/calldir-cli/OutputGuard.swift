import ArgumentParser
import CallDirLookup
import CallDirReader
import CallDirWriter

/// The checks every command with an output runs before any work (docs/CLI.md, "Exit status"):
/// - a link at an output is followed only as `fs.protected_symlinks` would
///   (`AtomicFile.followLinks`, which publishing applies again): else exit 2, an output that
///   cannot be written, before any work rather than after the index (`--error-file` is
///   published last);
/// - no output may name one of the inputs (same device and inode, links followed), or
///   publishing it would replace the file being read and still exit 0 (`export --index X -o
///   X`, `diff A B -o A`, `compile --block L -o L`): bad usage, exit 64.
enum OutputGuard {
    /// `outputs`: each output path (nil when not given) and its role in messages.
    static func refuse(outputs: [(path: String?, role: String)], inputs: [String]) throws {
        for case let (path?, role) in outputs where path != "-" {
            do { _ = try AtomicFile.followLinks(path, role: role) } catch { throw Terminal.fail(error) }
        }
        do {
            for (path, role) in outputs { try AtomicFile.refuseInputs(inputs, output: path, role: role) }
        } catch let error as CallDirError {
            Terminal.error(error.description)
            throw ExitCode(.usage)
        }
    }
}
