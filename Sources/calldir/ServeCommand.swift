#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CallDirServeOptions

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
        let daemon = siblingExecutable("calldir-serve")
        var arguments = [daemon] + CommandLine.arguments.dropFirst(2)  // everything after `serve`
        if options.index == nil { arguments += ["--index", DefaultIndex.path] }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        execv(daemon, &argv)
        let reason = String(cString: strerror(errno))
        Terminal.error("cannot start \(daemon): \(reason) (calldir-serve must be installed next to calldir)")
        throw ExitCode(2)
    }

    /// `name` in the folder of the running executable.
    private func siblingExecutable(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let own = length > 0 ? String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                             : CommandLine.arguments[0]
        guard let slash = own.lastIndex(of: "/") else { return name }
        return String(own[...slash]) + name
    }
}
