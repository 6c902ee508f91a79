/* Internal: lay several arrays out in one allocation (one malloc, one free, nothing to leak on
 * a partial failure). First pass: cdyn_carve_take records aligned offsets and detects size_t
 * overflow; then allocate cv.off bytes and add each offset to the block's address.
 * Pointer form (cdyn_carve_doubles/_ints): one layout function run twice, first with base NULL
 * to measure cv.off, then on a fresh carve with base = the allocated block to set the arrays,
 * so the sizes are written down only once. */
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

/* Pointer form of cdyn_carve_take: base + offset, or NULL while only measuring (base NULL) or
 * after an overflow. */
static inline void *cdyn_carve_ptr(cdyn_carve *cv, void *base, size_t count, size_t elem)
{
    const size_t off = cdyn_carve_take(cv, count, elem);
    return base != NULL && !cv->overflow ? (char *)base + off : NULL;
}

static inline double *cdyn_carve_doubles(cdyn_carve *cv, void *base, size_t count)
{
    return (double *)cdyn_carve_ptr(cv, base, count, sizeof(double));
}

static inline int *cdyn_carve_ints(cdyn_carve *cv, void *base, size_t count)
{
    return (int *)cdyn_carve_ptr(cv, base, count, sizeof(int));
}

#endif
