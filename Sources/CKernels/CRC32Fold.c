// CRC-32 by folding with PCLMULQDQ, after Gopal, Ozturk et al., "Fast CRC Computation for
// Generic Polynomials Using PCLMULQDQ Instruction" (Intel, 2009), for the bit-reflected
// polynomial 0xEDB88320 of zlib and gzip. Each step multiplies the two 64-bit halves of a
// 128-bit remainder by x^(distance) mod P (precomputed constants) and adds the data that
// distance further on; the last 128-bit remainder is reduced to the 32-bit CRC by Barrett
// reduction. Fewer than 16 trailing bytes are left to CRC32Table.c.

#include "CKernels.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#if defined(__GLIBC__) && __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#endif

// Asked when first needed, and without CPUID where glibc (2.33+) already knows: in a virtual
// machine every CPUID traps to the hypervisor, about 8 us each on our VM, and glibc's start-up
// has already asked. `__builtin_cpu_supports` would link libgcc's start-up constructor, which
// issues a dozen CPUIDs in every process (~4% of a one-shot lookup's time).
int calldir_crc32_fold_available(void) {
#if defined(CPU_FEATURE_ACTIVE)
    return CPU_FEATURE_ACTIVE(PCLMULQDQ) && CPU_FEATURE_ACTIVE(SSE2);
#else
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_PCLMUL) != 0 && (edx & bit_SSE2) != 0;
#endif
}

__attribute__((target("pclmul,sse2")))
static inline __m128i fold(__m128i remainder, __m128i constants, __m128i next) {
    __m128i low = _mm_clmulepi64_si128(remainder, constants, 0x00);
    __m128i high = _mm_clmulepi64_si128(remainder, constants, 0x11);
    return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

__attribute__((target("pclmul,sse2")))
uint32_t calldir_crc32_fold(uint32_t crc, const uint8_t *buf, size_t length, size_t *consumed) {
    *consumed = 0;
    if (length < 64) return crc;
    // x^(4*128+64) and x^(4*128) mod P, bit-reflected: fold 64 bytes ahead.
    const __m128i by4 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
    // x^(128+64) and x^128 mod P: fold 16 bytes ahead.
    const __m128i by1 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
    const uint8_t *p = buf;
    __m128i x0 = _mm_loadu_si128((const __m128i *)p);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(p + 32));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(p + 48));
    x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)~crc));  // the running CRC enters as data
    p += 64;
    size_t left = length - 64;
    while (left >= 64) {
        x0 = fold(x0, by4, _mm_loadu_si128((const __m128i *)p));
        x1 = fold(x1, by4, _mm_loadu_si128((const __m128i *)(p + 16)));
        x2 = fold(x2, by4, _mm_loadu_si128((const __m128i *)(p + 32)));
        x3 = fold(x3, by4, _mm_loadu_si128((const __m128i *)(p + 48)));
        p += 64;
        left -= 64;
    }
    x0 = fold(x0, by1, x1);
    x0 = fold(x0, by1, x2);
    x0 = fold(x0, by1, x3);
    while (left >= 16) {
        x0 = fold(x0, by1, _mm_loadu_si128((const __m128i *)p));
        p += 16;
        left -= 16;
    }
    // Reduce the 128-bit remainder to 64 bits, then 32, then Barrett-reduce it modulo P
    // (the same steps as Chromium's zlib, crc32_simd.c): a table would take 16 dependent
    // lookups here, a third of the time of checking a 400-byte block.
    const __m128i low32 = _mm_setr_epi32(~0, 0, ~0, 0);
    x1 = _mm_xor_si128(_mm_srli_si128(x0, 8), _mm_clmulepi64_si128(x0, by1, 0x10));
    const __m128i by32 = _mm_set_epi64x(0, 0x163cd6124);  // x^64 mod P
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 4), _mm_clmulepi64_si128(_mm_and_si128(x1, low32), by32, 0x00));
    const __m128i barrett = _mm_set_epi64x(0x1f7011641, 0x1db710641);  // floor(x^64 / P), P
    x2 = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, low32), barrett, 0x10), low32);
    x1 = _mm_xor_si128(x1, _mm_clmulepi64_si128(x2, barrett, 0x00));
    *consumed = (size_t)(p - buf);
    return ~(uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(x1, 4));
}

#else

int calldir_crc32_fold_available(void) { return 0; }

uint32_t calldir_crc32_fold(uint32_t crc, const uint8_t *buf, size_t length, size_t *consumed) {
    (void)buf; (void)length;
    *consumed = 0;
    return crc;
}

#endif
