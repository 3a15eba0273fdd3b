#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CallDir
import CallDirReader

/// Where the index lives when no --index is given.
enum DefaultIndex {
    static var path: String {
        if let explicit = env("CALLDIR_INDEX"), !explicit.isEmpty { return explicit }
        let data = env("XDG_DATA_HOME").flatMap { $0.isEmpty ? nil : $0 } ?? ((env("HOME") ?? ".") + "/.local/share")
        return data + "/calldir/index.calldir"
    }

    /// Creates the folders above `path` (mkdir -p).
    static func createFolders(for path: String) {
        var prefix = ""
        for part in path.split(separator: "/", omittingEmptySubsequences: false).dropLast() {
            prefix += (prefix.isEmpty && path.hasPrefix("/") && part.isEmpty) ? "/" : (prefix.isEmpty || prefix == "/" ? "" : "/") + part
            if !prefix.isEmpty { mkdir(prefix, 0o755) }
        }
    }

    private static func env(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}

/// Output helpers: stdout for results, stderr for messages and progress.
enum Terminal {
    static let stderrIsTerminal = isatty(2) == 1

    static func error(_ message: String) { printError("calldir: error: \(message)") }

    static func printError(_ line: String) {
        writeAll(2, line + "\n")
    }

    static func progress(_ line: String) {
        guard stderrIsTerminal else { return }
        writeAll(2, "\r\u{1B}[K" + line)
    }

    static func clearProgress() {
        guard stderrIsTerminal else { return }
        writeAll(2, "\r\u{1B}[K")
    }

    /// Prints `error` and exits with 2 (or 1 for the given negative-answer codes).
    static func fail(_ error: Error, negative: Set<CallDirError.Code> = []) -> ExitCode {
        if let e = error as? CallDirError {
            self.error(e.description)
            return negative.contains(e.code) ? ExitCode(1) : ExitCode(2)
        }
        self.error("\(error)")
        return ExitCode(2)
    }
}

/// Buffered stdout for bulk output. A failed write (a full disk, a closed pipe) is remembered
/// and reported by `close()`, so output cut short never exits 0.
struct StdoutBuffer {
    private(set) var bytes: [UInt8] = []
    /// errno of the first write that failed; later output is dropped.
    private(set) var failure: Int32?

    mutating func write(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= 1 << 16 { flush() }
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        self.bytes.append(contentsOf: bytes)
        if self.bytes.count >= 1 << 16 { flush() }
    }

    /// `{` + what `members` writes + `}` and a newline, straight into the buffer.
    mutating func writeJSONLine(maxBytes: Int, _ members: (inout JSONWriter) -> Void) {
        bytes.appendJSON(maxBytes: maxBytes + 3) { w in
            w.byte(UInt8(ascii: "{"))
            members(&w)
            w.text("}\n")
        }
        if bytes.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        if failure == nil { failure = bytes.withUnsafeBytes { writeAll(1, $0) } }
        bytes.removeAll(keepingCapacity: true)
    }

    /// Flushes; false (after saying why on stderr, unless the reader just went away) when
    /// some output could not be written.
    mutating func close() -> Bool {
        flush()
        guard let failure else { return true }
        if failure != EPIPE {
            Terminal.error("cannot write to stdout: \(String(cString: strerror(failure))); the output is incomplete")
        }
        return false
    }
}

/// "64M", "1G", "512K" or plain bytes.
func parseSize(_ text: String) -> Int? {
    let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
    var digits = text.uppercased()
    if digits.hasSuffix("IB") { digits.removeLast(2) } else if digits.hasSuffix("B") { digits.removeLast() }
    var factor = 1
    if let last = digits.last, let unit = units[last] { factor = unit; digits.removeLast() }
    guard let value = Int(digits), value > 0 else { return nil }
    return value.multipliedReportingOverflow(by: factor).overflow ? nil : value * factor
}

func formatCount<T: BinaryInteger>(_ n: T) -> String {
    let digits = String(n)
    var out = ""
    for (i, c) in digits.enumerated() {
        if i > 0, (digits.count - i) % 3 == 0, c != "-" { out.append(",") }
        out.append(c)
    }
    return out
}

func formatFixed(_ value: Double, _ places: Int) -> String {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        if decimals < places { text += String(repeating: "0", count: places - decimals) }
    } else if places > 0 { text += "." + String(repeating: "0", count: places) }
    return text
}

/// write(2) until done; the errno of a failure (EPIPE: the reader went away), else nil.
@discardableResult
func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    var done = 0
    while done < bytes.count {
        let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
        if n < 0 { if errno == EINTR { continue }; return errno }
        done += n
    }
    return nil
}

@discardableResult
func writeAll(_ fd: Int32, _ text: String) -> Int32? {
    var text = text
    return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
}
