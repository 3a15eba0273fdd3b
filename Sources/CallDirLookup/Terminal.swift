#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CallDirReader

/// Output helpers: stdout for results, stderr for messages and progress.
package enum Terminal {
    package static let stderrIsTerminal = isatty(2) == 1

    package static func error(_ message: String) { printError("calldir: error: \(message)") }

    package static func printError(_ line: String) {
        writeAll(2, line + "\n")
    }

    package static func progress(_ line: String) {
        guard stderrIsTerminal else { return }
        writeAll(2, "\r\u{1B}[K" + line)
    }

    package static func clearProgress() {
        guard stderrIsTerminal else { return }
        writeAll(2, "\r\u{1B}[K")
    }

    /// Prints `error`; the exit status that goes with it: 2, or 1 for the given negative-answer codes.
    package static func failStatus(_ error: Error, negative: Set<CallDirError.Code> = []) -> Int32 {
        if let e = error as? CallDirError {
            self.error(e.description)
            return (negative.contains(e.code) ? ExitStatus.negativeAnswer : .error).rawValue
        }
        self.error("\(error)")
        return ExitStatus.error.rawValue
    }
}

/// write(2) until done; the errno of a failure (EPIPE: the reader went away), else nil.
@discardableResult
package func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    var done = 0
    while done < bytes.count {
        let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
        if n < 0 { if errno == EINTR { continue }; return errno }
        done += n
    }
    return nil
}

@discardableResult
package func writeAll(_ fd: Int32, _ text: String) -> Int32? {
    var text = text
    return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
}
