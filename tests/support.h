/* Shared test helpers: a deterministic RNG, random matrices, a failing allocator. */
#ifndef CDYN_TEST_SUPPORT_H
#define CDYN_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "cdyn/alloc.h"
#include "cdyn/status.h"

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

/* One allocating call for test_alloc_every_failure. run() resets the caller-visible outputs to
 * sentinel values (keeping a copy), makes the call with allocator a and returns its status;
 * unchanged() says whether those outputs still equal the copy; release() (may be NULL) frees
 * what a successful run returned. ctx is passed to all three. */
typedef struct test_alloc_case {
    const char *name;
    cdyn_status (*run)(void *ctx, const cdyn_allocator *a);
    int (*unchanged)(void *ctx);
    void (*release)(void *ctx);
    void *ctx;
} test_alloc_case;

/* Runs the call once through a counting allocator (it must succeed and release everything),
 * then once more for every allocation k it made, with allocation k failing. Each failing run
 * must return CDYN_ENOMEM with the outputs unchanged, or succeed (a failure the call recovered
 * from), and must leave no block live. Returns the number of allocation sites tested, or -1
 * after printing the first violation to stderr. */
int test_alloc_every_failure(const test_alloc_case *c);

#endif
