import ArgumentParser
import CallDir
import CallDirReader


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

        Start here:
          calldir compile --block data/blocked.txt --identify data/identified.csv
          calldir lookup 18005555555
        """,
        version: CallDirVersion.string,
        subcommands: [CompileCommand.self, LookupCommand.self, InspectCommand.self, VerifyCommand.self, SimulateCommand.self, ExportCommand.self, DiffCommand.self, PatchCommand.self, ServeCommand.self]
    )
}
