/* The reusable LCP solver (cdyn_lcp_solver_*) against the one-shot cdyn_lcp_solve on the shared
 * random problems: a cold solve is the one-shot's answer bit for bit; warm solves of nearby
 * problems are certified afresh here and equal the one-shot's (unique solutions of P-matrix
 * problems); after the first solve nothing is allocated; the kept basis can be read and set,
 * the size change and the capacity grow; bad input is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cdyn/lcp.h"
#include "lcp_problems.h"
#include "support.h"

enum { NMAX = 60 };

typedef void (*lcp_gen)(test_rng *, int, double *, double *);

/* Independent check of an answer: z >= 0, w = M z + q recomputed here >= 0, z' w = 0, each to
 * tol times the row's scale (|q_i| + sum_j |M_ij z_j|, at least 1). */
static void assert_solves(const cdyn_lcp *p, const double *z, double tol)
{
    for (int i = 0; i < p->n; i++) {
        double w = p->q[i], scale = fabs(p->q[i]);
        for (int j = 0; j < p->n; j++) {
            w += p->M[i + j * p->n] * z[j];
            scale += fabs(p->M[i + j * p->n] * z[j]);
        }
        scale = fmax(scale, 1.0);
        assert_true(z[i] >= -tol * scale);
        assert_true(w >= -tol * scale);
        assert_true(fabs(fmin(z[i], w)) <= tol * scale);
    }
}

/* Cold: the first solve of every generator and size is cdyn_lcp_solve's answer bit for bit. */
static void test_cold_equals_one_shot(void **unused)
{
    (void)unused;
    static const lcp_gen gens[] = {lcpgen_spd, lcpgen_pmatrix};
    static double M[NMAX * NMAX], q[NMAX], z1[NMAX], w1[NMAX], z2[NMAX], w2[NMAX];
    for (int g = 0; g < 3; g++)
        for (int n = 4; n <= 48; n += 11) {
            test_rng rng;
            test_rng_seed(&rng, 1000u * (unsigned)g + (unsigned)n);
            int size = n;
            if (g < 2)
                gens[g](&rng, n, M, q);
            else {
                size = lcpgen_pyramid_size(n / 6 + 1);
                lcpgen_pyramid(&rng, n / 6 + 1, 0.5, M, q);
            }
            const cdyn_lcp p = {size, M, q};
            cdyn_report r1, r2;
            const cdyn_status s1 = cdyn_lcp_solve(&p, NULL, z1, w1, &r1);
            cdyn_lcp_solver *s = NULL;
            assert_int_equal(cdyn_lcp_solver_create(size, NULL, &s, NULL), CDYN_OK);
            const cdyn_status s2 = cdyn_lcp_solver_solve(s, &p, z2, w2, &r2);
            assert_int_equal(s1, s2);
            assert_int_equal(r1.iterations, r2.iterations);
            if (s1 == CDYN_OK) {
                assert_memory_equal(z1, z2, (size_t)size * sizeof(double));
                assert_memory_equal(w1, w2, (size_t)size * sizeof(double));
            }
            cdyn_lcp_solver_free(s);
        }
}

/* A sequence of nearby problems (q drifts, as a contact problem from step to step): every warm
 * answer passes the check above and equals the one-shot's (a P-matrix LCP has one solution);
 * the same problem twice takes 0 pivots the second time (its basis is the kept one). Run twice
 * over the same sequence: the second pass takes the same paths (warm Lemke, and where the basis
 * changed its fallbacks) and allocates nothing, the workspace having grown to their peak. */
static void test_warm_sequence(void **unused)
{
    (void)unused;
    enum { N = 40, STEPS = 30 };
    static double M[N * N], q0[N], q[N], dq[STEPS * N], z[N], w[N], zr[N], wr[N];
    test_rng rng;
    test_rng_seed(&rng, 77);
    lcpgen_pmatrix(&rng, N, M, q0);
    for (int i = 0; i < STEPS * N; i++)
        dq[i] = test_rng_range(&rng, -0.02, 0.02);
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    cdyn_lcp_options o;
    cdyn_lcp_defaults(&o);
    o.lemke.allocator = &fa.allocator;
    cdyn_lcp_solver *s = NULL;
    assert_int_equal(cdyn_lcp_solver_create(N, &o, &s, NULL), CDYN_OK);
    const cdyn_lcp p = {N, M, q};
    cdyn_report r;
    int after_first_pass = 0;
    for (int pass = 0; pass < 2; pass++) {
        memcpy(q, q0, sizeof q);
        assert_int_equal(cdyn_lcp_solver_solve(s, &p, z, w, &r), CDYN_OK);
        assert_int_equal(cdyn_lcp_solver_solve(s, &p, z, w, &r), CDYN_OK);
        assert_int_equal(r.iterations, 0);
        int warm_zero = 0;
        for (int k = 0; k < STEPS; k++) {
            for (int i = 0; i < N; i++)
                q[i] += dq[k * N + i];
            assert_int_equal(cdyn_lcp_solver_solve(s, &p, z, w, &r), CDYN_OK);
            warm_zero += r.iterations == 0;
            assert_solves(&p, z, 1e-10);
            assert_int_equal(cdyn_lcp_solve(&p, NULL, zr, wr, NULL), CDYN_OK);
            for (int i = 0; i < N; i++)
                assert_true(fabs(z[i] - zr[i]) <= 1e-9 * (1.0 + fabs(zr[i])));
        }
        print_message("pass %d: %d of %d warm solves with 0 pivots, %d allocations\n", pass,
                      warm_zero, STEPS, fa.allocations);
        if (pass == 0)
            after_first_pass = fa.allocations;
    }
    assert_int_equal(fa.allocations, after_first_pass);
    cdyn_lcp_solver_free(s);
    assert_int_equal(fa.live, 0);
}

/* The kept basis through get_basis is Lemke's final basis (cdyn_lemke_ex, a second entry point,
 * on the same problem: the cold solve's first attempt is that Lemke run); handed to a fresh
 * solver with set_basis it solves the problem with 0 pivots (lcp.h: a warm basis whose basic
 * solution passes is returned as is) and the same answer as the one-shot (a P-matrix LCP has
 * one solution); dropped with set_basis(0), the next solve is the one-shot bit for bit; a wrong
 * basis (every entry flipped) still gives a certified answer equal to the one-shot's. */
static void test_set_get_basis(void **unused)
{
    (void)unused;
    enum { N = 30 };
    static double M[N * N], q[N], z[N], w[N], zr[N], wr[N];
    int basis[N], lb[N], flipped[N];
    test_rng rng;
    test_rng_seed(&rng, 4242);
    lcpgen_pmatrix(&rng, N, M, q);
    const cdyn_lcp p = {N, M, q};
    cdyn_report r, rr;
    assert_int_equal(cdyn_lcp_solve(&p, NULL, zr, wr, &rr), CDYN_OK);
    assert_int_equal(cdyn_lemke_ex(&p, NULL, z, w, lb, NULL), CDYN_OK);

    cdyn_lcp_solver *s = NULL;
    assert_int_equal(cdyn_lcp_solver_create(N, NULL, &s, NULL), CDYN_OK);
    int n = -1;
    assert_int_equal(cdyn_lcp_solver_get_basis(s, &n, NULL, 0, &r), CDYN_OK);
    assert_int_equal(n, 0); /* nothing kept before a solve */
    assert_int_equal(cdyn_lcp_solver_solve(s, &p, z, w, &r), CDYN_OK);
    assert_int_equal(cdyn_lcp_solver_get_basis(s, &n, NULL, 0, &r), CDYN_ETOOBIG);
    assert_int_equal(n, N); /* the size, for sizing the array */
    assert_int_equal(cdyn_lcp_solver_get_basis(s, &n, basis, N, &r), CDYN_OK);
    assert_int_equal(n, N);
    assert_memory_equal(basis, lb, sizeof basis);
    for (int i = 0; i < N; i++) { /* complementary: a positive z_i is basic, a positive w_i not
                                     (a nonbasic one is M z + q recomputed: rounding, 1e-9) */
        assert_true(basis[i] == 0 || basis[i] == 1);
        if (z[i] > 1e-9 * (1 + fabs(q[i])))
            assert_int_equal(basis[i], 1);
        if (w[i] > 1e-9 * (1 + fabs(q[i])))
            assert_int_equal(basis[i], 0);
    }
    cdyn_lcp_solver_free(s);

    s = NULL;
    assert_int_equal(cdyn_lcp_solver_create(N, NULL, &s, NULL), CDYN_OK);
    assert_int_equal(cdyn_lcp_solver_set_basis(s, N, basis, &r), CDYN_OK);
    assert_int_equal(cdyn_lcp_solver_solve(s, &p, z, w, &r), CDYN_OK);
    assert_int_equal(r.iterations, 0);
    assert_solves(&p, z, 1e-10);
    for (int i = 0; i < N; i++)
        assert_true(fabs(z[i] - zr[i]) <= 1e-9 * (1.0 + fabs(zr[i])));

    assert_int_equal(cdyn_lcp_solver_set_basis(s, 0, NULL, &r), CDYN_OK);
    assert_int_equal(cdyn_lcp_solver_get_basis(s, &n, basis, N, &r), CDYN_OK);
    assert_int_equal(n, 0);
    assert_int_equal(cdyn_lcp_solver_solve(s, &p, z, w, &r), CDYN_OK);
    assert_int_equal(r.iterations, rr.iterations);
    assert_memory_equal(z, zr, sizeof z);
    assert_memory_equal(w, wr, sizeof w);

    for (int i = 0; i < N; i++)
        flipped[i] = !lb[i];
    assert_int_equal(cdyn_lcp_solver_set_basis(s, N, flipped, &r), CDYN_OK);
    assert_int_equal(cdyn_lcp_solver_solve(s, &p, z, w, &r), CDYN_OK);
    assert_true(r.iterations > 0);
    assert_solves(&p, z, 1e-10);
    for (int i = 0; i < N; i++)
        assert_true(fabs(z[i] - zr[i]) <= 1e-9 * (1.0 + fabs(zr[i])));
    cdyn_lcp_solver_free(s);
}

/* Problems whose size changes from solve to solve (a contact set that grows and shrinks): a solve
 * after a size change is cold, the one-shot's answer and pivots bit for bit; the same size again
 * warm-starts (0 pivots on the same problem); reserve grows the capacity keeping the kept basis
 * (0 pivots after it) and lets larger problems in; a repeated sequence of sizes, once the arena
 * has grown, allocates nothing. */
static void test_size_changes(void **unused)
{
    (void)unused;
    enum { N = 36 };
    static const int sizes[] = {12, 24, 12, 12, 24, 24, 5};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    static double M[NS][N * N], q[NS][N], z[N], w[N], zr[N], wr[N];
    test_rng rng;
    test_rng_seed(&rng, 99);
    for (int k = 0; k < NS; k++) {
        if (k > 0 && sizes[k] == sizes[k - 1]) { /* the same problem again */
            memcpy(M[k], M[k - 1], sizeof M[k]);
            memcpy(q[k], q[k - 1], sizeof q[k]);
        } else {
            lcpgen_pmatrix(&rng, sizes[k], M[k], q[k]);
        }
    }
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    cdyn_lcp_options o;
    cdyn_lcp_defaults(&o);
    o.lemke.allocator = &fa.allocator;
    cdyn_lcp_solver *s = NULL;
    assert_int_equal(cdyn_lcp_solver_create(24, &o, &s, NULL), CDYN_OK);
    cdyn_report r, rr;
    int after_first = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < NS; k++) {
            const cdyn_lcp p = {sizes[k], M[k], q[k]};
            const size_t bytes = (size_t)sizes[k] * sizeof(double);
            assert_int_equal(cdyn_lcp_solver_solve(s, &p, z, w, &r), CDYN_OK);
            const int same = k > 0 ? sizes[k] == sizes[k - 1] : pass == 1 && sizes[NS - 1] ==
                                                                     sizes[0];
            assert_int_equal(cdyn_lcp_solve(&p, NULL, zr, wr, &rr), CDYN_OK);
            if (same) {
                assert_int_equal(r.iterations, 0);
                for (int i = 0; i < sizes[k]; i++)
                    assert_true(fabs(z[i] - zr[i]) <= 1e-9 * (1.0 + fabs(zr[i])));
            } else {
                assert_int_equal(r.iterations, rr.iterations);
                assert_memory_equal(z, zr, bytes);
                assert_memory_equal(w, wr, bytes);
            }
        }
        if (pass == 0)
            after_first = fa.allocations;
    }
    assert_int_equal(fa.allocations, after_first);

    /* above the capacity: refused until reserved */
    static double Mb[N * N], qb[N];
    lcpgen_pmatrix(&rng, N, Mb, qb);
    const cdyn_lcp big = {N, Mb, qb};
    assert_int_equal(cdyn_lcp_solver_solve(s, &big, z, w, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_solver_reserve(s, 10, &r), CDYN_OK); /* smaller: nothing to do */
    assert_int_equal(fa.allocations, after_first);
    const cdyn_lcp last = {sizes[NS - 1], M[NS - 1], q[NS - 1]};
    assert_int_equal(cdyn_lcp_solver_reserve(s, N, &r), CDYN_OK);
    assert_int_equal(cdyn_lcp_solver_solve(s, &last, z, w, &r), CDYN_OK);
    assert_int_equal(r.iterations, 0); /* the kept basis survived the growth */
    assert_int_equal(cdyn_lcp_solver_solve(s, &big, z, w, &r), CDYN_OK);
    assert_int_equal(cdyn_lcp_solve(&big, NULL, zr, wr, &rr), CDYN_OK);
    assert_int_equal(r.iterations, rr.iterations);
    assert_memory_equal(z, zr, sizeof z);
    cdyn_lcp_solver_free(s);
    assert_int_equal(fa.live, 0);
}

static void test_bad_input(void **unused)
{
    (void)unused;
    double M[4] = {2, 0, 0, 2}, q[2] = {-1, 1}, z[2] = {7, 7}, w[2] = {7, 7};
    cdyn_lcp_solver *s = (cdyn_lcp_solver *)&s;
    cdyn_report r;
    assert_int_equal(cdyn_lcp_solver_create(0, NULL, &s, &r), CDYN_EINVAL);
    assert_null(s);
    assert_int_equal(cdyn_lcp_solver_create(2, NULL, NULL, &r), CDYN_EINVAL);
    cdyn_lcp_options o;
    cdyn_lcp_defaults(&o);
    int basis[2] = {1, 0};
    o.lemke.warm_basis = basis;
    assert_int_equal(cdyn_lcp_solver_create(2, &o, &s, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "warm_basis"));
    assert_int_equal(cdyn_lcp_solver_create(1, NULL, &s, &r), CDYN_OK);
    const cdyn_lcp p = {2, M, q};
    assert_int_equal(cdyn_lcp_solver_solve(s, &p, z, w, &r), CDYN_EINVAL); /* n above capacity */
    assert_true(z[0] == 7 && w[0] == 7);
    assert_int_equal(cdyn_lcp_solver_solve(NULL, &p, z, w, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_solver_solve(s, NULL, z, w, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_solver_solve(s, &p, NULL, w, &r), CDYN_EINVAL);
    const double Mn[1] = {NAN}, qn[1] = {1};
    const cdyn_lcp pn = {1, Mn, qn};
    assert_int_equal(cdyn_lcp_solver_solve(s, &pn, z, w, &r), CDYN_EINVAL);
    cdyn_lcp_solver_free(s);
    cdyn_lcp_solver_free(NULL);

    /* basis calls: refused with a message, the kept basis unchanged */
    assert_int_equal(cdyn_lcp_solver_create(2, NULL, &s, &r), CDYN_OK);
    const int good[2] = {1, 0}, bad[2] = {1, 2};
    int got[2] = {9, 9}, n = -1;
    assert_int_equal(cdyn_lcp_solver_set_basis(s, 2, good, &r), CDYN_OK);
    assert_int_equal(cdyn_lcp_solver_set_basis(NULL, 2, good, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_solver_set_basis(s, -1, good, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_solver_set_basis(s, 3, good, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "0 (no basis) .. 2"));
    assert_int_equal(cdyn_lcp_solver_set_basis(s, 2, NULL, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_solver_set_basis(s, 2, bad, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "basis[1] = 2"));
    assert_int_equal(cdyn_lcp_solver_get_basis(s, &n, got, 2, &r), CDYN_OK);
    assert_int_equal(n, 2);
    assert_true(got[0] == 1 && got[1] == 0);
    assert_int_equal(cdyn_lcp_solver_get_basis(NULL, &n, got, 2, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_solver_get_basis(s, NULL, got, 2, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_solver_get_basis(s, &n, got, -1, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_solver_get_basis(s, &n, NULL, 2, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_solver_get_basis(s, &n, got, 1, &r), CDYN_ETOOBIG);
    assert_int_equal(n, 2);
    assert_int_equal(cdyn_lcp_solver_reserve(NULL, 4, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_solver_reserve(s, 0, &r), CDYN_EINVAL);
    /* NaN data on the warm path (a basis of its size is kept): refused, outputs untouched */
    const double M2[4] = {2, 0, 0, NAN}, q2[2] = {-1, -1};
    const cdyn_lcp p2 = {2, M2, q2};
    z[0] = w[0] = 7;
    assert_int_equal(cdyn_lcp_solver_solve(s, &p2, z, w, &r), CDYN_EINVAL);
    assert_true(z[0] == 7 && w[0] == 7);
    cdyn_lcp_solver_free(s);
}

/* Creation and a first solve under every allocation failure: CDYN_ENOMEM or success, nothing
 * leaked (the support harness counts live blocks). */
typedef struct alloc_ctx {
    double z[6], w[6];
    cdyn_lcp_solver *s;
} alloc_ctx;

static cdyn_status alloc_run(void *ctx, const cdyn_allocator *a)
{
    alloc_ctx *c = ctx;
    static const double M[9] = {2, 1, 0, 1, 2, 1, 0, 1, 2}, q[3] = {-1, 0.5, -2};
    cdyn_lcp_options o;
    cdyn_lcp_defaults(&o);
    o.lemke.allocator = a;
    c->s = NULL;
    cdyn_status st = cdyn_lcp_solver_create(3, &o, &c->s, NULL);
    if (st != CDYN_OK)
        return st;
    const cdyn_lcp p = {3, M, q};
    st = cdyn_lcp_solver_solve(c->s, &p, c->z, c->w, NULL);
    if (st == CDYN_OK)
        st = cdyn_lcp_solver_solve(c->s, &p, c->z, c->w, NULL);
    /* growing keeps the solver usable when it fails: the kept basis still solves p */
    int n = 0, basis[6];
    if (st == CDYN_OK && cdyn_lcp_solver_reserve(c->s, 6, NULL) == CDYN_ENOMEM) {
        cdyn_report r;
        if (cdyn_lcp_solver_get_basis(c->s, &n, basis, 6, NULL) != CDYN_OK || n != 3 ||
            cdyn_lcp_solver_solve(c->s, &p, c->z, c->w, &r) != CDYN_OK || r.iterations != 0)
            st = CDYN_ENUMERIC; /* not OK or ENOMEM: the harness fails */
        else
            st = CDYN_ENOMEM;
    }
    if (st == CDYN_OK && (cdyn_lcp_solver_get_basis(c->s, &n, basis, 6, NULL) != CDYN_OK ||
                          cdyn_lcp_solver_set_basis(c->s, n, basis, NULL) != CDYN_OK))
        st = CDYN_ENUMERIC; /* not OK or ENOMEM: the harness fails */
    if (st == CDYN_OK)
        st = cdyn_lcp_solver_solve(c->s, &p, c->z, c->w, NULL);
    cdyn_lcp_solver_free(c->s);
    c->s = NULL;
    return st;
}

static int alloc_unchanged(void *ctx)
{
    (void)ctx;
    return 1; /* the outputs are the solver's, released inside run */
}

static void test_alloc_failures(void **unused)
{
    (void)unused;
    alloc_ctx c;
    memset(&c, 0, sizeof c);
    const test_alloc_case tc = {"lcp solver", alloc_run, alloc_unchanged, NULL, &c};
    assert_true(test_alloc_every_failure(&tc) >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cold_equals_one_shot),
        cmocka_unit_test(test_warm_sequence),
        cmocka_unit_test(test_set_get_basis),
        cmocka_unit_test(test_size_changes),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
