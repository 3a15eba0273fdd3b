import ArgumentParser
import CallDirLookup
import CallDirOptions
import CallDirReader

/// `calldir serve`: parses and checks the options, then replaces this process with the
/// `calldir-serve` daemon installed next to `calldir` (same PID, same arguments, the default
/// index filled in). The daemon lives in its own executable so that `calldir lookup` does not
/// link SwiftNIO: it made every one-shot start measurably slower.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Answer lookups over HTTP from a verified index, swapping in replacements without downtime.",
        discussion: ServeOptions.discussion
    )

    @OptionGroup var options: ServeOptions

    func run() throws {
        var arguments = Array(CommandLine.arguments.dropFirst(2))  // everything after `serve`
        if options.index == nil { arguments += ["--index", DefaultIndex.path] }
        SiblingExecutable.exec("calldir-serve", arguments: arguments)
        throw ExitCode(.error)
    }
}
