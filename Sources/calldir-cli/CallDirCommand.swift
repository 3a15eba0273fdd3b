#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import CallDir
import CallDirLookup
import CallDirReader

/// `calldir-cli`: every command, with the help and the checks of swift-argument-parser. Users
/// run `calldir`, which answers plain lookups itself and hands everything else to this.
@main
enum Main {
    static func main() {
        // A reader that leaves early (a FIFO, `| head`) makes a write fail with EPIPE, which
        // every output reports as exit 2 and cleans up after; SIGPIPE would kill the process
        // (exit 141) and leave its temporaries. Kept across the exec into calldir-cli.
        signal(SIGPIPE, SIG_IGN)
        // `lookup -` skips swift-argument-parser's set-up (~2 ms) like the front's lookups do.
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let fast = FastLookup(arguments: arguments, acceptsStdin: true) {
            fast.run(stream: { try $0.answerLines(path: "-") })
        }
        // No subcommand is a usage error (64), as with most CLIs; the help goes to stderr.
        if arguments.isEmpty {
            Terminal.printError(CallDirCommand.helpMessage())
            exit(ExitStatus.usage.rawValue)
        }
        if let message = CommandSuggestion.message(for: arguments, commands: CommandSuggestion.commandNames) {
            Terminal.printError(message)
            exit(ExitStatus.usage.rawValue)
        }
        CallDirCommand.main()
    }
}

struct CallDirCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calldir",
        abstract: "Compile phone-number blocking and identification lists into a checksummed index, and look numbers up in it.",
        discussion: """
        Numbers are E.164 digits without '+', as CallKit takes them: 18005555555. Every \
        subcommand uses the index named on its command line, else $CALLDIR_INDEX, else \
        $XDG_DATA_HOME/calldir/index.calldir (~/.local/share/calldir/index.calldir).

        Exit status: 0 success; 1 a negative answer (lookup: a number is not listed; \
        compile: the list breaks a rule; verify: the index is damaged); 2 an error \
        (unreadable input, a missing or damaged index for lookup); 64 bad usage.

        Start here (from any folder):
          printf '18005555555\\n19005550123\\n' > blocked.txt
          calldir compile --country 1 --block blocked.txt -o demo.calldir
          calldir lookup --index demo.calldir 18005555555
        """,
        version: CallDirVersion.string,
        subcommands: [CompileCommand.self, LookupCommand.self, InspectCommand.self, VerifyCommand.self, SimulateCommand.self, ExportCommand.self, DiffCommand.self, PatchCommand.self, ShardCommand.self, ServeCommand.self, KeygenCommand.self, PublishCommand.self, UpdateCommand.self]
    )
}
