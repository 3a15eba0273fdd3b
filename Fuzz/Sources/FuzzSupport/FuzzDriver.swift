import CFuzz
#if canImport(Glibc)
import Glibc
#endif

/// Runs libFuzzer with the process's arguments, calling `body` with each input. `body` must
/// never crash on any input: a trap, an ASan report or a leak is a finding.
public func runFuzzer(_ body: @escaping @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
    atexit { unlink(ScratchFile.path) }
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, body))
}

/// The input as a buffer (libFuzzer may pass a null pointer for an empty input).
@inline(__always)
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: size == 0 ? nil : data, count: size)
}

/// One scratch file per process, rewritten with each input, for code that reads paths.
public enum ScratchFile {
    public static let path: String = {
        let folder = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        return "\(folder)/calldir-fuzz-\(getpid())"
    }()

    /// Replaces the file's contents with `bytes` and returns its path.
    public static func write(_ bytes: UnsafeRawBufferPointer) -> String {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(fd >= 0, "cannot create \(path)")
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            precondition(n > 0, "cannot write \(path)")
            done += n
        }
        close(fd)
        return path
    }
}
