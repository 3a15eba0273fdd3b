import CFuzz
#if canImport(Glibc)
import Glibc
#endif

/// Runs libFuzzer with the process's arguments, calling `body` with each input. `body` must
/// never crash on any input: a trap, an ASan report or a leak is a finding.
public func runFuzzer(_ body: @escaping @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, body))
}

/// The input as a buffer (libFuzzer may pass a null pointer for an empty input).
@inline(__always)
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: size == 0 ? nil : data, count: size)
}
