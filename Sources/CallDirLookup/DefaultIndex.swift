#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the index lives when no --index is given.
package enum DefaultIndex {
    package static var path: String {
        if let explicit = env("CALLDIR_INDEX"), !explicit.isEmpty { return explicit }
        let data = env("XDG_DATA_HOME").flatMap { $0.isEmpty ? nil : $0 } ?? ((env("HOME") ?? ".") + "/.local/share")
        return data + "/calldir/index.calldir"
    }

    /// Creates the folders above `path` (mkdir -p); returns those it created, outermost first.
    @discardableResult
    package static func createFolders(for path: String) -> [String] {
        var prefix = ""
        var created: [String] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: false).dropLast() {
            prefix += (prefix.isEmpty && path.hasPrefix("/") && part.isEmpty) ? "/" : (prefix.isEmpty || prefix == "/" ? "" : "/") + part
            if !prefix.isEmpty, mkdir(prefix, 0o755) == 0 { created.append(prefix) }
        }
        return created
    }

    /// Removes the folders `createFolders` created that are still empty, innermost first: a
    /// failed compile leaves no folder behind.
    package static func removeEmptyFolders(_ created: [String]) {
        for folder in created.reversed() { rmdir(folder) }
    }

    private static func env(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}
