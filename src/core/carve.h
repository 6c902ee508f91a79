/* Internal: lay several arrays out in one allocation (one malloc, one free, nothing to leak on
 * a partial failure). First pass: cdyn_carve_take records aligned offsets and detects size_t
 * overflow; then allocate cv.off bytes and add each offset to the block's address. */
#ifndef CDYN_CORE_CARVE_H
#define CDYN_CORE_CARVE_H

#include <stddef.h>
#include <stdint.h>

typedef struct cdyn_carve {
    size_t off;
    int overflow;
} cdyn_carve;

/* Offset of a new array of count*elem bytes (16-byte aligned). */
static inline size_t cdyn_carve_take(cdyn_carve *cv, size_t count, size_t elem)
{
    const size_t align = 16;
    if (cv->off > SIZE_MAX - align) {
        cv->overflow = 1;
        return 0;
    }
    size_t start = (cv->off + align - 1) / align * align;
    if (elem != 0 && count > (SIZE_MAX - start) / elem) {
        cv->overflow = 1;
        return 0;
    }
    cv->off = start + count * elem;
    return start;
}

/* a*b, flagging overflow in the carve. */
static inline size_t cdyn_carve_mul(cdyn_carve *cv, size_t a, size_t b)
{
    if (b != 0 && a > SIZE_MAX / b) {
        cv->overflow = 1;
        return 0;
    }
    return a * b;
}

#endif
