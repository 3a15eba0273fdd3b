#ifndef CLOOKUPSUPPORT_H
#define CLOOKUPSUPPORT_H

#include <stddef.h>
#include <stdint.h>

// Two lookup kernels Swift cannot express: these static inline functions are compiled into
// the Swift code that calls them.

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

#endif
