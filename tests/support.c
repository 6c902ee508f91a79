#include "support.h"

#include <stdio.h>
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

int test_alloc_every_failure(const test_alloc_case *c)
{
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    cdyn_status st = c->run(c->ctx, &fa.allocator);
    if (st != CDYN_OK) {
        fprintf(stderr, "%s: the counting run returned %s\n", c->name, cdyn_status_str(st));
        return -1;
    }
    if (c->release != NULL)
        c->release(c->ctx);
    if (fa.live != 0) {
        fprintf(stderr, "%s: %d blocks live after a successful run\n", c->name, fa.live);
        return -1;
    }
    const int sites = fa.allocations;
    for (int k = 0; k < sites; ++k) {
        test_failing_alloc_init(&fa, k);
        st = c->run(c->ctx, &fa.allocator);
        if (st == CDYN_OK) {
            if (c->release != NULL)
                c->release(c->ctx);
        } else if (st != CDYN_ENOMEM) {
            fprintf(stderr, "%s: allocation %d of %d failing gave %s\n", c->name, k, sites,
                    cdyn_status_str(st));
            return -1;
        } else if (!c->unchanged(c->ctx)) {
            fprintf(stderr, "%s: allocation %d of %d failing changed the outputs\n", c->name, k,
                    sites);
            return -1;
        }
        if (fa.live != 0) {
            fprintf(stderr, "%s: allocation %d of %d failing leaked %d blocks\n", c->name, k,
                    sites, fa.live);
            return -1;
        }
    }
    return sites;
}
