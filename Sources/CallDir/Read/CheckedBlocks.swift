import Synchronization

/// The blocks of a numbers section whose CRC already matched in this process, one bit each,
/// so that an index opened without full verification checks each block once, not at every
/// lookup: a million stdin lookups spent 40% of their time re-checking the same blocks.
/// Lookups may run on many threads; a race only means a block is checked twice.
final class CheckedBlocks: @unchecked Sendable {  // the flags are atomics
    private let words: UnsafeMutablePointer<Atomic<UInt64>>
    private let wordCount: Int

    init(blockCount: Int) {
        wordCount = (blockCount + 63) / 64
        words = .allocate(capacity: max(wordCount, 1))
        for w in 0..<wordCount { (words + w).initialize(to: Atomic(0)) }
    }

    deinit {
        words.deinitialize(count: wordCount)
        words.deallocate()
    }

    @inline(__always)
    func contains(_ block: Int) -> Bool {
        words[block &>> 6].load(ordering: .relaxed) & (1 &<< UInt64(block & 63)) != 0
    }

    @inline(__always)
    func insert(_ block: Int) {
        words[block &>> 6].bitwiseOr(1 &<< UInt64(block & 63), ordering: .relaxed)
    }
}
