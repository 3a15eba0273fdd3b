import Foundation

// Here, not in TestSupport: `Process` does not exist on iOS, where TestSupport type-checks.

/// Runs `bash -c command` in `folder` with `environment` added to the test's own; returns the
/// exit status and stdout (stderr is discarded). One home for the tests that drive a shell.
package func runBash(_ command: String, in folder: String? = nil, environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", command]
    if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
