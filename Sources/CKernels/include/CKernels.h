#ifndef CKERNELS_H
#define CKERNELS_H

#include <stddef.h>
#include <stdint.h>

// Small kernels Swift cannot express efficiently. The static inline functions are compiled
// into the Swift code that calls them; the CRC fold lives in CRC32Fold.c.

/// Asks the CPU to start loading the cache line holding `address`: a hint, no fault, no
/// result (PREFETCHT0 on x86-64, PRFM on arm64). Swift has no prefetch intrinsic.
static inline void calldir_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/// Index of the last of `count` ascending values that is <= `x`, or -1 when there is none.
/// Branch-free: each step selects instead of jumping, so random keys cost no mispredictions
/// and searches for consecutive keys overlap in the CPU. (The same loop in Swift is compiled
/// back into a branch; `__builtin_unpredictable` keeps the select.)
static inline ptrdiff_t calldir_last_at_most(const int64_t *values, ptrdiff_t count, int64_t x) {
    if (count <= 0 || values[0] > x) return -1;
    const int64_t *base = values;
    ptrdiff_t length = count;
    while (length > 1) {
        ptrdiff_t half = length / 2;
        base = __builtin_unpredictable(base[half] <= x) ? base + half : base;
        length -= half;
    }
    return base - values;
}

/// 1 when `calldir_crc32_fold` can run on this CPU (x86-64 with PCLMULQDQ), else 0.
int calldir_crc32_fold_available(void);

/// CRC-32 (the zlib/gzip CRC) of `buf` folded with carry-less multiplication, 64 bytes per
/// step: about 20 times a table's speed. Continues `crc` as zlib's crc32() does and returns the
/// CRC of the bytes it consumed: all but the last `length % 16` (none when `length < 64`).
/// Sets `*consumed`; the caller finishes the rest with `calldir_crc32_bytes`.
uint32_t calldir_crc32_fold(uint32_t crc, const uint8_t *buf, size_t length, size_t *consumed);

/// CRC-32 of `length` bytes, continuing `crc` exactly as zlib's crc32() does (0 to start).
/// Portable: on arm64 the CRC32 instructions when the CPU has them (detected at run time), else
/// a table.
uint32_t calldir_crc32_bytes(uint32_t crc, const uint8_t *buf, size_t length);

/// Atomic load (acquire) and OR (release) on a 64-bit word, for flags shared by lookup
/// threads: what a thread wrote before setting a flag (a directory page's summary slots) is
/// seen by a thread that sees the flag. The reader library avoids Swift's Synchronization
/// module, which would require iOS 18. On x86-64 both are plain instructions.
static inline uint64_t calldir_atomic_load_u64(const uint64_t *word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

static inline void calldir_atomic_or_u64(uint64_t *word, uint64_t bits) {
    __atomic_fetch_or(word, bits, __ATOMIC_RELEASE);
}

#endif
