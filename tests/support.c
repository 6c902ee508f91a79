#include "support.h"

#include <stdlib.h>

void test_rng_seed(test_rng *rng, uint64_t seed)
{
    rng->state = seed ? seed : 0x9E3779B97F4A7C15ull;
}

double test_rng_uniform(test_rng *rng)
{
    uint64_t x = rng->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

double test_rng_range(test_rng *rng, double lo, double hi)
{
    return lo + (hi - lo) * test_rng_uniform(rng);
}

void test_random_spd(test_rng *rng, int n, double shift, double *A)
{
    double *B = malloc(sizeof(double) * (size_t)n * (size_t)n);
    for (size_t k = 0; k < (size_t)n * (size_t)n; ++k)
        B[k] = test_rng_range(rng, -1.0, 1.0);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            double s = (i == j) ? shift : 0.0;
            for (int k = 0; k < n; ++k)
                s += B[i + (size_t)k * n] * B[j + (size_t)k * n];
            A[i + (size_t)j * n] = s;
        }
    free(B);
}

static void *failing_alloc(void *ctx, size_t size)
{
    test_failing_alloc *fa = ctx;
    if (fa->fail_after >= 0 && fa->allocations >= fa->fail_after)
        return NULL;
    void *p = malloc(size);
    if (p != NULL) {
        fa->allocations++;
        fa->live++;
    }
    return p;
}

static void failing_release(void *ctx, void *ptr)
{
    test_failing_alloc *fa = ctx;
    if (ptr != NULL) {
        fa->live--;
        free(ptr);
    }
}

void test_failing_alloc_init(test_failing_alloc *fa, int fail_after)
{
    fa->allocator.alloc = failing_alloc;
    fa->allocator.release = failing_release;
    fa->allocator.ctx = fa;
    fa->fail_after = fail_after;
    fa->allocations = 0;
    fa->live = 0;
}
