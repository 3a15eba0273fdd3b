#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The executables of calldir are installed side by side: `calldir` (the lookup front),
/// `calldir-cli` (every command) and `calldir-serve` (the daemon).
package enum SiblingExecutable {
    /// `name` in the folder of the running executable.
    package static func path(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let own = length > 0 ? String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                             : CommandLine.arguments[0]
        guard let slash = own.lastIndex(of: "/") else { return name }
        return String(own[...slash]) + name
    }

    /// Replaces this process (same PID, so signals and exit status reach the caller) with the
    /// sibling `name` run with `arguments`; returns only when that fails, after saying why.
    package static func exec(_ name: String, arguments: [String]) {
        let path = path(name)
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, &argv)
        let reason = String(cString: strerror(errno))
        // Name every sibling that is missing at once, not one per attempt.
        let others = all.filter { $0 != name && access(self.path($0), X_OK) != 0 }
        let also = others.isEmpty ? "" : "; also missing: " + others.joined(separator: ", ")
        Terminal.error("cannot start \(path): \(reason) (\(name) must be installed next to calldir\(also))")
    }

    /// Every executable `calldir` hands work to.
    package static let all = ["calldir-cli", "calldir-serve"]
}
