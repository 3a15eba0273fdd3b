import Foundation
import CompileSupport
@_exported import TestSupport

/// Runs the built `calldir` binary as a child process, as a user or a script would.
struct CLI {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static var binary: String {
        if let explicit = ProcessInfo.processInfo.environment["CALLDIR_BIN"] { return explicit }
        return packageRoot.appendingPathComponent(".build/debug/calldir").path
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `calldir ARGS` (or another `binary`) with `stdin` piped in and `environment` added.
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
                    binary: String = CLI.binary) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "SOURCE_DATE_EPOCH")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        _ = ignoreBrokenPipes
        try process.run()
        // A process that exits before reading all its input (a usage error, a damaged index)
        // closes the pipe: the write fails with EPIPE instead of killing the test run.
        if let stdin { try? input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                      stderr: String(decoding: stderrData, as: UTF8.self))
    }
}

/// Runs `bash -c shell`; returns the exit status and stderr.
func runShell(_ shell: String) throws -> (Int32, String) {
    let run = try runBash(shell, capturing: .stderr)
    return (run.status, run.output)
}

/// SIGPIPE ignored in the test process, once: writing to a child that exited must not kill
/// the whole run (it did, as "unexpected signal code 13", when a child exited early).
private let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()
