import CKernels

/// The blocks of a numbers section whose CRC already matched in this process, one bit each,
/// so that an index opened without full verification checks each block once, not at every
/// lookup: a million stdin lookups spent 40% of their time re-checking the same blocks.
/// Lookups may run on many threads; a race only means a block is checked twice. The bits are
/// C atomics, acquire and release (Swift's `Synchronization` would require iOS 18).
package final class CheckedBlocks: @unchecked Sendable {  // the flags are atomics
    private let words: UnsafeMutablePointer<UInt64>
    private let wordCount: Int

    init(blockCount: Int) {
        wordCount = (blockCount + 63) / 64
        words = Syscalls.allocateZeroed(words: wordCount)  // untouched pages stay unmapped
    }

    deinit {
        Syscalls.freeZeroed(words)
    }

    @inline(__always)
    func contains(_ block: Int) -> Bool {
        calldir_atomic_load_u64(words + (block &>> 6)) & (1 &<< UInt64(block & 63)) != 0
    }

    @inline(__always)
    func insert(_ block: Int) {
        calldir_atomic_or_u64(words + (block &>> 6), 1 &<< UInt64(block & 63))
    }
}
