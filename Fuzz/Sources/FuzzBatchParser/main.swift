@testable import CallDirServer
import FuzzSupport
import NIOCore

// The daemon's batch body parser (JSON array or lines), at a small and the default limit.
runFuzzer { data, size in
    let body = ByteBuffer(bytes: fuzzBytes(data, size))
    for limit in [3, 1000] {
        if case .success(let numbers) = BatchParser.parse(body, limit: limit) {
            precondition(numbers.count <= limit, "limit \(limit) exceeded: \(numbers.count)")
        }
    }
    return 0
}
