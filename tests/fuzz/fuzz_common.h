/* Shared pieces of the libFuzzer targets: decoding the fuzzer's bytes into small problems, an
 * invariant check that aborts (so libFuzzer records the input), status validation. */
#ifndef CDYN_FUZZ_COMMON_H
#define CDYN_FUZZ_COMMON_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdyn/status.h"
#include "support.h"

/* An invariant failed: say which and abort, so libFuzzer saves the crashing input. */
#define FZ_CHECK(cond)                                                                    \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

static inline int fz_status_valid(cdyn_status s)
{
    switch (s) {
#define FZ_CASE_(name, value, text) case name:
        CDYN_STATUS_LIST(FZ_CASE_)
#undef FZ_CASE_
        return 1;
    }
    return 0;
}

/* The report must repeat the status and carry NUL-terminated texts. */
static inline void fz_check_report(const cdyn_report *r, cdyn_status s)
{
    if (!fz_status_valid(s) || r->status != s)
        fprintf(stderr, "returned %d, report %d (%s): %s\n", (int)s, (int)r->status, r->method,
                r->message);
    FZ_CHECK(fz_status_valid(s));
    FZ_CHECK(r->status == s);
    FZ_CHECK(memchr(r->message, '\0', sizeof r->message) != NULL);
    FZ_CHECK(memchr(r->method, '\0', sizeof r->method) != NULL);
}

typedef struct fz_reader {
    const uint8_t *p;
    size_t left;
} fz_reader;

static inline unsigned fz_byte(fz_reader *f)
{
    if (f->left == 0)
        return 0;
    f->left--;
    return *f->p++;
}

/* Values that break numerical code: non-finite, extreme and subnormal magnitudes. */
static const double fz_special[] = {
    NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e300, -1e300, 1e-300, -1e-300, DBL_MAX, -DBL_MAX,
    DBL_MIN, 4.9406564584124654e-324, 1e16, -1e16, 1e-16, 1.0, -1.0, 0.5, 2.0,
};

/* One double: mostly small multiples of 1/4 (so pivoting problems are often solvable), then
 * scaled values over 10^-20..10^20, the special table, or 8 raw bytes (any bit pattern). */
static inline double fz_double(fz_reader *f)
{
    unsigned t = fz_byte(f) % 16;
    if (t < 10)
        return (double)(int8_t)fz_byte(f) / 4.0;
    if (t < 13) {
        double m = (double)(int8_t)fz_byte(f);
        int e = (int)(fz_byte(f) % 41) - 20;
        return m * pow(10.0, e);
    }
    if (t < 15)
        return fz_special[fz_byte(f) % (sizeof fz_special / sizeof fz_special[0])];
    uint8_t raw[8] = {0};
    for (int k = 0; k < 8; ++k)
        raw[k] = (uint8_t)fz_byte(f);
    double x;
    memcpy(&x, raw, sizeof x);
    return x;
}

static inline void fz_doubles(fz_reader *f, double *x, size_t n)
{
    for (size_t k = 0; k < n; ++k)
        x[k] = fz_double(f);
}

static inline double fz_norm_inf(size_t n, const double *x)
{
    double m = 0.0;
    for (size_t k = 0; k < n; ++k)
        m = fmax(m, fabs(x[k]));
    return m;
}

static inline int fz_all_finite(size_t n, const double *x)
{
    for (size_t k = 0; k < n; ++k)
        if (!isfinite(x[k]))
            return 0;
    return 1;
}

/* The allocator for one call: counts live blocks; the input's byte chooses whether (and after
 * how many successes) it fails, so every target also walks its allocation-failure paths. */
static inline void fz_alloc_init(fz_reader *f, test_failing_alloc *fa)
{
    unsigned b = fz_byte(f);
    test_failing_alloc_init(fa, b < 192 ? -1 : (int)(b - 192) % 16);
}

#endif
