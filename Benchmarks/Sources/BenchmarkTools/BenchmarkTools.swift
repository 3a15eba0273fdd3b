#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// What every timing tool of this package needs (calldir-bulk, -feed, -normalize, -personal):
// a monotonic clock, resident memory and its peak, and a failure that names the problem and
// exits 2.

/// Seconds on the monotonic clock (only differences mean anything).
public func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Writes `message` to standard error and exits with status 2.
public func fail(_ message: String) -> Never {
    _ = (message + "\n").utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress!, $0.count - 1) }
    exit(2)
}

/// Resident and peak resident memory (VmRSS, VmHWM) in KiB, from /proc/self/status.
public func memoryKiB() -> (rss: Int, peak: Int) {
    guard let file = fopen("/proc/self/status", "r") else { return (0, 0) }
    defer { fclose(file) }
    var rss = 0, peak = 0
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(cString: line)
        let value = Int(text.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        if text.hasPrefix("VmRSS:") { rss = value }
        if text.hasPrefix("VmHWM:") { peak = value }
    }
    return (rss, peak)
}

/// Resets VmHWM to the current RSS (Linux 4.0+), so that the peak measured is what follows.
public func resetPeak() {
    let fd = open("/proc/self/clear_refs", O_WRONLY)
    guard fd >= 0 else { return }
    _ = write(fd, "5", 1)
    close(fd)
}
