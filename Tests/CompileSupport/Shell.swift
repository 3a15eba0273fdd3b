import Foundation

// Here, not in TestSupport: `Process` does not exist on iOS, where TestSupport type-checks.

/// Which stream of the command `runBash` returns; the other is discarded.
package enum ShellStream: Sendable { case stdout, stderr }

/// Runs `bash -c command` in `folder` with `environment` added to the test's own; returns the
/// exit status and stdout (or stderr, with `capturing: .stderr`; the other is discarded). One
/// home for the tests that drive a shell.
package func runBash(_ command: String, in folder: String? = nil, environment: [String: String] = [:],
                     capturing stream: ShellStream = .stdout) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", command]
    if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe()
    process.standardOutput = stream == .stdout ? out : FileHandle.nullDevice
    process.standardError = stream == .stderr ? out : FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
