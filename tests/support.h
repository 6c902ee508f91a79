/* Shared test helpers: a deterministic RNG, random matrices, a failing allocator. */
#ifndef CDYN_TEST_SUPPORT_H
#define CDYN_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "cdyn/alloc.h"

/* xorshift64* generator: tests and benchmarks must be reproducible from a seed. */
typedef struct test_rng {
    uint64_t state;
} test_rng;

void test_rng_seed(test_rng *rng, uint64_t seed);
double test_rng_uniform(test_rng *rng); /* in [0, 1) */
double test_rng_range(test_rng *rng, double lo, double hi);

/* A = B B^T + shift*I with B n-by-n uniform in [-1, 1] (column-major, symmetric positive
 * definite for shift > 0). */
void test_random_spd(test_rng *rng, int n, double shift, double *A);

/* An allocator that fails once `fail_after` allocations have succeeded (fail_after < 0: never),
 * counting live blocks so a test can assert that nothing leaked after a failure. */
typedef struct test_failing_alloc {
    cdyn_allocator allocator;
    int fail_after;
    int allocations;
    int live;
} test_failing_alloc;

void test_failing_alloc_init(test_failing_alloc *fa, int fail_after);

#endif
