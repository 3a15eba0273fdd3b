#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CallDirReader

/// Buffered stdout for bulk output. A failed write (a full disk, a closed pipe) is remembered
/// and reported by `close()`, so output cut short never exits 0.
package struct StdoutBuffer {
    package private(set) var bytes: [UInt8] = []
    /// errno of the first write that failed; later output is dropped.
    package private(set) var failure: Int32?

    package init() {}

    package mutating func write(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= 1 << 16 { flush() }
    }

    package mutating func write(_ bytes: UnsafeRawBufferPointer) {
        self.bytes.append(contentsOf: bytes)
        if self.bytes.count >= 1 << 16 { flush() }
    }

    /// What `object` writes (at most `maxBytes`) and a newline, straight into the buffer.
    package mutating func writeJSONLine(maxBytes: Int, _ object: (inout JSONWriter) -> Void) {
        bytes.appendJSON(maxBytes: maxBytes + 1) { w in
            object(&w)
            w.byte(UInt8(ascii: "\n"))
        }
        if bytes.count >= 1 << 16 { flush() }
    }

    package mutating func flush() {
        if failure == nil { failure = bytes.withUnsafeBytes { writeAll(1, $0) } }
        bytes.removeAll(keepingCapacity: true)
    }

    /// Flushes; false (after saying why on stderr, unless the reader just went away) when
    /// some output could not be written.
    package mutating func close() -> Bool {
        flush()
        guard let failure else { return true }
        if failure != EPIPE {
            Terminal.error("cannot write to stdout: \(String(cString: strerror(failure))); the output is incomplete")
        }
        return false
    }
}
