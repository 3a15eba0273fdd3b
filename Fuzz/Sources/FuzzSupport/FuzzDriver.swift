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

/// Runs `exercise` on each input as it is, then resealed (every checksum recomputed by the
/// test suite's `Forger`), so that mutations reach the range checks behind the checksums.
public func runFuzzerResealed(_ exercise: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
    resealedExercise = exercise  // libFuzzer takes a C function, which cannot capture
    runFuzzer { data, size in
        let bytes = fuzzBytes(data, size)
        resealedExercise!(bytes)
        guard size >= 80, size <= 1 << 20 else { return 0 }
        var forger = Forger(bytes: Array(bytes))
        forger.reseal()
        forger.bytes.withUnsafeBytes { resealedExercise!($0) }
        return 0
    }
}

nonisolated(unsafe) private var resealedExercise: ((UnsafeRawBufferPointer) -> Void)?
