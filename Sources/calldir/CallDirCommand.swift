import ArgumentParser

@main
struct CallDirCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calldir",
        abstract: "Compile phone-number blocking and identification lists into a checksummed index, and look numbers up in it."
    )
}
