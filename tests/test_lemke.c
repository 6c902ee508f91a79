/* Lemke's method (cdyn_lemke) and the default entry point with fallbacks (cdyn_lcp_solve).
 *
 * Expected values come from hand derivations (stated next to each case), from published
 * properties of the Siconos fixture problems (tests/data/README.md), from the definition of an
 * LCP solution (z >= 0, w = Mz + q >= 0, z^T w = 0, checked directly), and from enumeration of
 * all complementary bases (an independent method) where the solution is unique.
 *
 * Inline matrices are written column by column, exactly as the Siconos files print them. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/lcp.h"
#include "lcp_problems.h"
#include "support.h"

#define SENTINEL 12345.0

/* The definition of a solution, checked independently of the solver's own report. */
static void assert_lcp_solution(const cdyn_lcp *lcp, const double *z, const double *w, double tol)
{
    const int n = lcp->n;
    for (int i = 0; i < n; ++i) {
        double mz = lcp->q[i];
        for (int j = 0; j < n; ++j)
            mz += lcp->M[i + (size_t)j * n] * z[j];
        assert_true(z[i] >= 0.0);
        assert_true(w[i] >= 0.0);
        assert_true(fabs(w[i] - mz) <= tol);
        assert_true(fmin(z[i], w[i]) <= tol);
    }
    assert_true(cdyn_lcp_residual(lcp, z) <= tol);
}

static void fill(double *x, int n, double v)
{
    for (int i = 0; i < n; ++i)
        x[i] = v;
}

static void assert_filled(const double *x, int n, double v)
{
    for (int i = 0; i < n; ++i)
        assert_true(x[i] == v);
}

/* ---- analytic cases --------------------------------------------------------------- */

/* M = [2 1; 1 2], q = (-5, -6) (Siconos lcp_deudeu.dat). With both z > 0, w = 0 gives
 * 2 z1 + z2 = 5, z1 + 2 z2 = 6, so z = (4/3, 7/3) > 0: that is the (unique, M is positive
 * definite) solution. */
static void test_2x2_both_positive(void **state)
{
    (void)state;
    const double M[] = {2, 1, 1, 2}, q[] = {-5, -6};
    cdyn_lcp lcp = {2, M, q};
    double z[2], w[2];
    cdyn_report rep;
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, &rep), CDYN_OK);
    assert_int_equal(rep.status, CDYN_OK);
    assert_string_equal(rep.method, "lemke");
    assert_true(fabs(z[0] - 4.0 / 3.0) <= 1e-14);
    assert_true(fabs(z[1] - 7.0 / 3.0) <= 1e-14);
    assert_true(fabs(w[0]) <= 1e-14 && fabs(w[1]) <= 1e-14);
    assert_true(rep.residual <= 1e-14);
    assert_true(rep.iterations > 0);
}

/* Same M, q = (-1, 2): with z2 = 0, w1 = 2 z1 - 1 = 0 gives z1 = 1/2 and w2 = z1 + 2 = 5/2 >= 0,
 * so z = (1/2, 0), w = (0, 5/2). */
static void test_2x2_one_positive(void **state)
{
    (void)state;
    const double M[] = {2, 1, 1, 2}, q[] = {-1, 2};
    cdyn_lcp lcp = {2, M, q};
    double z[2], w[2];
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, NULL), CDYN_OK);
    assert_true(fabs(z[0] - 0.5) <= 1e-15 && z[1] == 0.0);
    assert_true(fabs(w[0]) <= 1e-15 && fabs(w[1] - 2.5) <= 1e-15);
}

/* Murty (1988), ch. 6, as in Siconos lcp_exp_murty.dat / lcp_exp_murty2.dat: read column by
 * column, M is upper triangular with 1 on the diagonal and 2 above it. */
static void murty_matrix(int n, double *M)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            M[i + (size_t)j * n] = i == j ? 1.0 : (i < j ? 2.0 : 0.0);
}

/* q = -1: z = e_n gives w_i = 2 - 1 = 1 for i < n and w_n = 1 - 1 = 0, complementary; M is a
 * P-matrix (triangular, unit diagonal: every principal minor is 1), so this is the solution. */
static void test_murty_q_ones(void **state)
{
    (void)state;
    enum { n = 6 };
    double M[n * n], q[n], z[n], w[n];
    murty_matrix(n, M);
    fill(q, n, -1.0);
    cdyn_lcp lcp = {n, M, q};
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, NULL), CDYN_OK);
    for (int i = 0; i < n; ++i) {
        assert_true(fabs(z[i] - (i == n - 1 ? 1.0 : 0.0)) <= 1e-14);
        assert_true(fabs(w[i] - (i == n - 1 ? 0.0 : 1.0)) <= 1e-14);
    }
}

/* lcp_exp_murty2.dat: q = -(126, 124, 120, 112, 96, 64). z = 64 e_6 gives w_i = 128 + q_i =
 * (2, 4, 8, 16, 32) and w_6 = 0: the unique solution. Murty (1988, ch. 6) shows the
 * complementary pivot path on this family crosses all 2^n complementary cones, so at least
 * 2^n - 1 pivots are needed: the lexicographic rule must not shortcut or cycle here. */
static void test_murty_exponential(void **state)
{
    (void)state;
    enum { n = 6 };
    double M[n * n], z[n], w[n];
    const double q[n] = {-126, -124, -120, -112, -96, -64};
    murty_matrix(n, M);
    cdyn_lcp lcp = {n, M, q};
    cdyn_report rep;
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, &rep), CDYN_OK);
    const double wexp[n] = {2, 4, 8, 16, 32, 0};
    for (int i = 0; i < n; ++i) {
        assert_true(fabs(z[i] - (i == n - 1 ? 64.0 : 0.0)) <= 1e-12);
        assert_true(fabs(w[i] - wexp[i]) <= 1e-12);
    }
    assert_true(rep.iterations >= (1 << n) - 1);
}

/* The same family at n = 9 needs >= 511 pivots, more than the default limit 50 (n + 1) = 500:
 * CDYN_ENOCONV, outputs untouched. */
static void test_pivot_limit(void **state)
{
    (void)state;
    enum { n = 9 };
    double M[n * n], q[n], z[n], w[n];
    murty_matrix(n, M);
    for (int i = 0; i < n; ++i)
        q[i] = -(double)((1 << (n + 1)) - (1 << (i + 1)));
    cdyn_lcp lcp = {n, M, q};
    fill(z, n, SENTINEL);
    fill(w, n, SENTINEL);
    cdyn_report rep;
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, &rep), CDYN_ENOCONV);
    assert_int_equal(rep.status, CDYN_ENOCONV);
    assert_int_equal(rep.iterations, 500);
    assert_true(strlen(rep.message) > 0);
    assert_filled(z, n, SENTINEL);
    assert_filled(w, n, SENTINEL);
    /* With room for the 2^n-step path the same problem is solved: z = 2^9 e_9 (as above). */
    cdyn_lemke_options o;
    cdyn_lemke_defaults(&o);
    o.max_pivots = 1 << (n + 1);
    assert_int_equal(cdyn_lemke(&lcp, &o, z, w, &rep), CDYN_OK);
    assert_true(fabs(z[n - 1] - 512.0) <= 1e-10);
    assert_true(rep.iterations >= (1 << n) - 1);
}

/* CPS_1 (Cottle–Pang–Stone 2009, Remark 4.1.14; lcp_CPS_1.dat): M = ones(2), q = (-1, -1).
 * The solution set is {z >= 0 : z1 + z2 = 1} (then w = 0). */
static void test_cps1_solution_set(void **state)
{
    (void)state;
    const double M[] = {1, 1, 1, 1}, q[] = {-1, -1};
    cdyn_lcp lcp = {2, M, q};
    double z[2], w[2];
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, NULL), CDYN_OK);
    assert_true(fabs(z[0] + z[1] - 1.0) <= 1e-14);
    assert_lcp_solution(&lcp, z, w, 1e-14);
}

/* Pang's isolated solution (lcp_Pang_isolated_sol.dat, columns (0,1,-1), (-1,0,0), (-1,0,0)):
 * M = [0 -1 -1; 1 0 0; -1 0 0], q = (0, -1, 1). w1 = -z2 - z3 >= 0 forces z2 = z3 = 0; then
 * w2 = z1 - 1 >= 0 and w3 = 1 - z1 >= 0 force z1 = 1: the only solution is z = (1, 0, 0), w = 0.
 * M is not copositive-plus, so the default entry point may need its fallbacks. */
static void test_pang_isolated(void **state)
{
    (void)state;
    const double M[] = {0, 1, -1, -1, 0, 0, -1, 0, 0}, q[] = {0, -1, 1};
    cdyn_lcp lcp = {3, M, q};
    double z[3], w[3];
    cdyn_report rep;
    assert_int_equal(cdyn_lcp_solve(&lcp, NULL, z, w, &rep), CDYN_OK);
    assert_true(fabs(z[0] - 1.0) <= 1e-14 && z[1] == 0.0 && z[2] == 0.0);
    assert_lcp_solution(&lcp, z, w, 1e-14);
    assert_true(rep.residual <= 1e-14);
}

/* CPS_3, a bimatrix game (Cottle–Pang–Stone 2009, Example 4.4.23; lcp_CPS_3.dat), q = -1.
 * M is not copositive-plus and Lemke with the covering vector of ones ends on a ray; the
 * default chain must still return a solution (checked against the definition). */
static void test_cps3_bimatrix_needs_fallback(void **state)
{
    (void)state;
    const double M[] = {0, 0, 10, 30, 0, 0, 20, 15, 10, 30, 0, 0, 20, 15, 0, 0};
    const double q[] = {-1, -1, -1, -1};
    cdyn_lcp lcp = {4, M, q};
    double z[4], w[4];
    cdyn_report rep;
    fill(z, 4, SENTINEL);
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, &rep), CDYN_ERAY);
    assert_true(strlen(rep.message) > 0);
    assert_filled(z, 4, SENTINEL);
    const int first = rep.iterations;
    assert_int_equal(cdyn_lcp_solve(&lcp, NULL, z, w, &rep), CDYN_OK);
    assert_string_not_equal(rep.method, "lemke");
    assert_true(rep.iterations >= first); /* the failed attempt's pivots are counted */
    assert_lcp_solution(&lcp, z, w, 1e-10);
    /* A Nash equilibrium is not z = 0: q < 0 rules it out. */
    assert_true(z[0] + z[1] > 0.0 && z[2] + z[3] > 0.0);
}

/* M = -1, q = -1 (n = 1): w = -z - 1 < 0 for every z >= 0, so there is no solution. Row 0 has
 * q_0 < 0 and no positive entry of M: that proves it (issue 18), and both entry points say so
 * (CDYN_EINFEASIBLE, report.proven) instead of Lemke's bare ray. */
static void test_infeasible(void **state)
{
    (void)state;
    const double M[] = {-1}, q[] = {-1};
    cdyn_lcp lcp = {1, M, q};
    double z[1] = {SENTINEL}, w[1] = {SENTINEL};
    cdyn_report rep;
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, &rep), CDYN_EINFEASIBLE);
    assert_int_equal(rep.proven, 1);
    assert_int_equal(cdyn_lcp_solve(&lcp, NULL, z, w, &rep), CDYN_EINFEASIBLE);
    assert_int_equal(rep.proven, 1);
    assert_true(z[0] == SENTINEL && w[0] == SENTINEL);
}

/* A copositive-plus (here positive semidefinite) M with an infeasible LCP: M = [1 -1; -1 1],
 * q = (-1, -1) gives w1 + w2 = -2 < 0. Cottle–Pang–Stone Thm 4.4.13: Lemke ends on a ray. No
 * row alone shows it (each has a positive entry), but the ray's direction y = (1, 1) is a Farkas
 * vector: y >= 0, M^T y = 0 <= 0, q^T y = -2 < 0. Both entry points report that proof
 * (CDYN_EINFEASIBLE, report.proven; issue 18), where before they reported a bare CDYN_ERAY. */
static void test_ray_copositive_plus(void **state)
{
    (void)state;
    const double M[] = {1, -1, -1, 1}, q[] = {-1, -1};
    cdyn_lcp lcp = {2, M, q};
    double z[2] = {SENTINEL, SENTINEL}, w[2] = {SENTINEL, SENTINEL};
    cdyn_report rep;
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, &rep), CDYN_EINFEASIBLE);
    assert_int_equal(rep.proven, 1);
    assert_int_equal(cdyn_lcp_solve(&lcp, NULL, z, w, &rep), CDYN_EINFEASIBLE);
    assert_int_equal(rep.proven, 1);
    assert_true(strlen(rep.message) > 0);
    assert_true(z[0] == SENTINEL && z[1] == SENTINEL && w[0] == SENTINEL && w[1] == SENTINEL);
}

/* ---- random problems ---------------------------------------------------------------- */

typedef void (*lcp_generator)(test_rng *, int, double *, double *);

/* Lemke on random P-matrix LCPs; for n <= 10 the solution must be the unique one found by
 * enumeration. */
static void check_random_family(lcp_generator gen, uint64_t seed0)
{
    const int sizes[] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 50, 100, 200, 500};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const int n = sizes[s];
        const int seeds = n <= 10 ? 4 : (n <= 100 ? 2 : 1);
        double *M = malloc(sizeof(double) * (size_t)n * n);
        double *q = malloc(sizeof(double) * n), *z = malloc(sizeof(double) * n);
        double *w = malloc(sizeof(double) * n), *ze = malloc(sizeof(double) * n);
        for (int k = 0; k < seeds; ++k) {
            test_rng rng;
            test_rng_seed(&rng, seed0 + 1000 * (uint64_t)n + (uint64_t)k);
            gen(&rng, n, M, q);
            cdyn_lcp lcp = {n, M, q};
            cdyn_report rep;
            assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, &rep), CDYN_OK);
            assert_true(rep.residual <= 1e-10);
            assert_lcp_solution(&lcp, z, w, 1e-10);
            if (n <= 10) {
                int count = -1;
                assert_int_equal(cdyn_lcp_enumerate(&lcp, ze, 1, &count, NULL, NULL), CDYN_OK);
                assert_int_equal(count, 1);
                for (int i = 0; i < n; ++i)
                    assert_true(fabs(z[i] - ze[i]) <= 1e-10);
            }
        }
        free(M);
        free(q);
        free(z);
        free(w);
        free(ze);
    }
}

static void test_random_spd_lcps(void **state)
{
    (void)state;
    check_random_family(lcpgen_spd, 11);
}

static void test_random_pmatrix_lcps(void **state)
{
    (void)state;
    check_random_family(lcpgen_pmatrix, 23);
}

/* ---- friction pyramids ---------------------------------------------------------------- */

/* Anitescu & Potra (1997) prove that Lemke's method solves these LCPs; every instance must be
 * solved by plain Lemke (the numerics, not the fallbacks) and by the default entry point. */
static void solve_pyramid(int nc, double mu, uint64_t seed)
{
    const int n = lcpgen_pyramid_size(nc);
    double *M = malloc(sizeof(double) * (size_t)n * n);
    double *q = malloc(sizeof(double) * n), *z = malloc(sizeof(double) * n);
    double *w = malloc(sizeof(double) * n);
    test_rng rng;
    test_rng_seed(&rng, seed);
    lcpgen_pyramid(&rng, nc, mu, M, q);
    cdyn_lcp lcp = {n, M, q};
    cdyn_report rep;
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, &rep), CDYN_OK);
    assert_true(rep.residual <= 1e-10);
    assert_lcp_solution(&lcp, z, w, 1e-10);
    assert_int_equal(cdyn_lcp_solve(&lcp, NULL, z, w, &rep), CDYN_OK);
    assert_string_equal(rep.method, "lemke");
    assert_true(rep.residual <= 1e-10);
    free(M);
    free(q);
    free(z);
    free(w);
}

static void test_pyramid_small(void **state)
{
    (void)state;
    const double mus[] = {0.0, 0.1, 0.5, 1.0, 10.0};
    for (int nc = 1; nc <= 24; ++nc)
        for (size_t m = 0; m < sizeof mus / sizeof mus[0]; ++m)
            solve_pyramid(nc, mus[m], 7000 + 10 * (uint64_t)nc + m);
}

static void test_pyramid_large(void **state)
{
    (void)state;
    const int ncs[] = {30, 35, 40, 45, 50, 55, 60, 67, 70, 80, 90, 100, 115, 130, 145, 160};
    for (size_t i = 0; i < sizeof ncs / sizeof ncs[0]; ++i) {
        solve_pyramid(ncs[i], 0.5, 9000 + (uint64_t)ncs[i]);
        if (ncs[i] <= 100)
            solve_pyramid(ncs[i], 10.0, 9500 + (uint64_t)ncs[i]);
    }
}

/* ---- degenerate problems -------------------------------------------------------------- */

/* q >= 0 (including zeros): z = 0, w = q is a solution, found with 0 pivots. */
static void test_trivial_q_nonnegative(void **state)
{
    (void)state;
    const double M[] = {1, -3, 2, 0}, q[] = {0, 2};
    cdyn_lcp lcp = {2, M, q};
    double z[2], w[2];
    cdyn_report rep;
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, &rep), CDYN_OK);
    assert_int_equal(rep.iterations, 0);
    assert_true(z[0] == 0.0 && z[1] == 0.0 && w[0] == 0.0 && w[1] == 2.0);
    assert_true(rep.residual == 0.0);
}

/* A zero row: M = [0 0; 1 2] (row 1 zero), q = (1, -2). w1 = 1 > 0 forces z1 = 0, then
 * w2 = 2 z2 - 2 = 0 gives z2 = 1: z = (0, 1), w = (1, 0) (z2 = 0 would leave w2 = -2). */
static void test_zero_row(void **state)
{
    (void)state;
    const double M[] = {0, 1, 0, 2}, q[] = {1, -2};
    cdyn_lcp lcp = {2, M, q};
    double z[2], w[2];
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, NULL), CDYN_OK);
    assert_true(z[0] == 0.0 && fabs(z[1] - 1.0) <= 1e-15);
    assert_true(fabs(w[0] - 1.0) <= 1e-15 && fabs(w[1]) <= 1e-15);
}

/* Repeated ties: M = I + ones(n), q = -ones. By symmetry every ratio test ties. M is positive
 * definite, so the unique solution is symmetric: z_i = t with (1 + n) t = 1, t = 1/(n+1). */
static void test_repeated_ties(void **state)
{
    (void)state;
    enum { n = 8 };
    double M[n * n], q[n], z[n], w[n];
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            M[i + j * n] = 1.0 + (i == j);
    fill(q, n, -1.0);
    cdyn_lcp lcp = {n, M, q};
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, NULL), CDYN_OK);
    for (int i = 0; i < n; ++i)
        assert_true(fabs(z[i] - 1.0 / (n + 1)) <= 1e-14);
    assert_lcp_solution(&lcp, z, w, 1e-14);
}

/* A degenerate problem (q_2 = 0) on which Lemke cycles forever when ties are broken by a fixed
 * order (lowest or highest basis position; found by a random search over small integer
 * problems and confirmed with both variants). The lexicographic rule cannot cycle and ends at
 * z = (2/3, 1/3, 5/3, 0): rows of M are (2 -1 0 0), (-1 2 0 -2), (0 -2 1 0), (2 2 1 -1), and
 * Mz + q = (4/3 - 1/3 - 1, -2/3 + 2/3, -2/3 + 5/3 - 1, 4/3 + 2/3 + 5/3 - 1) = (0, 0, 0, 8/3). */
static void test_lexicographic_rule_prevents_cycling(void **state)
{
    (void)state;
    const double M[] = {2, -1, 0, 2, -1, 2, -2, 2, 0, 0, 1, 1, 0, -2, 0, -1};
    const double q[] = {-1, 0, -1, -1};
    cdyn_lcp lcp = {4, M, q};
    double z[4], w[4];
    cdyn_report rep;
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, &rep), CDYN_OK);
    const double zexp[] = {2.0 / 3.0, 1.0 / 3.0, 5.0 / 3.0, 0.0};
    const double wexp[] = {0.0, 0.0, 0.0, 8.0 / 3.0};
    for (int i = 0; i < 4; ++i) {
        assert_true(fabs(z[i] - zexp[i]) <= 1e-14);
        assert_true(fabs(w[i] - wexp[i]) <= 1e-14);
    }
}

/* Zeros in q make basic variables vanish (degenerate pivots). P-matrix problems with q_i = 0
 * for a third of the rows: the unique solution is compared with enumeration. */
static void test_zeros_in_q(void **state)
{
    (void)state;
    enum { n = 9 };
    double M[n * n], q[n], z[n], w[n], ze[n];
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        test_rng rng;
        test_rng_seed(&rng, 500 + seed);
        lcpgen_pmatrix(&rng, n, M, q);
        for (int i = 0; i < n; i += 3)
            q[i] = 0.0;
        cdyn_lcp lcp = {n, M, q};
        assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, NULL), CDYN_OK);
        assert_lcp_solution(&lcp, z, w, 1e-12);
        int count = 0;
        assert_int_equal(cdyn_lcp_enumerate(&lcp, ze, 1, &count, NULL, NULL), CDYN_OK);
        assert_int_equal(count, 1);
        for (int i = 0; i < n; ++i)
            assert_true(fabs(z[i] - ze[i]) <= 1e-12);
    }
}

/* The covering vector is an input: any d > 0 gives the same (unique) solution of a P-matrix
 * LCP. */
static void test_covering_vector(void **state)
{
    (void)state;
    enum { n = 30 };
    double M[n * n], q[n], z1[n], w1[n], z2[n], w2[n], d[n];
    test_rng rng;
    test_rng_seed(&rng, 77);
    lcpgen_pmatrix(&rng, n, M, q);
    for (int i = 0; i < n; ++i)
        d[i] = test_rng_range(&rng, 0.1, 10.0);
    cdyn_lcp lcp = {n, M, q};
    cdyn_lemke_options o;
    cdyn_lemke_defaults(&o);
    o.covering = d;
    assert_int_equal(cdyn_lemke(&lcp, NULL, z1, w1, NULL), CDYN_OK);
    assert_int_equal(cdyn_lemke(&lcp, &o, z2, w2, NULL), CDYN_OK);
    for (int i = 0; i < n; ++i)
        assert_true(fabs(z1[i] - z2[i]) <= 1e-12);
}

/* refactor_every only changes rounding, not the answer: every pivot, the default, never. */
static void test_refactor_settings(void **state)
{
    (void)state;
    const int nc = 20, n = lcpgen_pyramid_size(nc);
    double *M = malloc(sizeof(double) * (size_t)n * n), *q = malloc(sizeof(double) * n);
    double *z = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
    test_rng rng;
    test_rng_seed(&rng, 4242);
    lcpgen_pyramid(&rng, nc, 0.5, M, q);
    cdyn_lcp lcp = {n, M, q};
    const int every[] = {1, 7, 0, -1};
    for (size_t i = 0; i < sizeof every / sizeof every[0]; ++i) {
        cdyn_lemke_options o;
        cdyn_lemke_defaults(&o);
        o.refactor_every = every[i];
        cdyn_report rep;
        assert_int_equal(cdyn_lemke(&lcp, &o, z, w, &rep), CDYN_OK);
        assert_lcp_solution(&lcp, z, w, 1e-10);
    }
    free(M);
    free(q);
    free(z);
    free(w);
}

/* The success test is the certificate: with an impossible tolerance the (accurate) result is
 * not certified. It is the best point there is, so it comes back as CDYN_EINACCURATE with its
 * residual (lcp.h), never as CDYN_OK. */
static void test_success_needs_residual(void **state)
{
    (void)state;
    enum { n = 40 };
    double M[n * n], q[n], z[n], w[n];
    test_rng rng;
    test_rng_seed(&rng, 99);
    lcpgen_spd(&rng, n, M, q);
    cdyn_lcp lcp = {n, M, q};
    cdyn_lemke_options o;
    cdyn_lemke_defaults(&o);
    cdyn_report rep;
    assert_int_equal(cdyn_lemke(&lcp, &o, z, w, &rep), CDYN_OK);
    assert_true(rep.residual > 0.0); /* rounding leaves something for the next step */
    o.tol = 1e-300;
    fill(z, n, SENTINEL);
    fill(w, n, SENTINEL);
    assert_int_equal(cdyn_lemke(&lcp, &o, z, w, &rep), CDYN_EINACCURATE);
    assert_int_equal(rep.status, CDYN_EINACCURATE);
    assert_true(strlen(rep.message) > 0);
    /* accurate, only not to 1e-300: z >= 0 and w within rounding of M z + q and of >= 0 */
    for (int i = 0; i < n; ++i) {
        double mz = q[i];
        for (int j = 0; j < n; ++j)
            mz += M[i + (size_t)j * n] * z[j];
        assert_true(z[i] >= 0.0 && w[i] >= -1e-12 && fabs(w[i] - mz) <= 1e-12);
    }
    assert_true(cdyn_lcp_residual(&lcp, z) <= 1e-10 && rep.residual <= 1e-10);
}

/* ---- warm start --------------------------------------------------------------------- */

static void test_warm_start_exact_basis(void **state)
{
    (void)state;
    enum { n = 60 };
    double M[n * n], q[n], z[n], w[n], z2[n], w2[n];
    int basis[n], guess[n];
    test_rng rng;
    test_rng_seed(&rng, 31);
    lcpgen_spd(&rng, n, M, q);
    cdyn_lcp lcp = {n, M, q};
    cdyn_report rep;
    assert_int_equal(cdyn_lemke_ex(&lcp, NULL, z, w, basis, &rep), CDYN_OK);
    assert_true(rep.iterations > 0);
    /* The returned basis and the one read off the (nondegenerate) solution both end the solve
       at once with the same solution (unique: M is positive definite). */
    for (int i = 0; i < n; ++i) {
        guess[i] = z[i] > w[i];
        assert_int_equal(guess[i], basis[i]);
    }
    cdyn_lemke_options o;
    cdyn_lemke_defaults(&o);
    o.warm_basis = guess;
    assert_int_equal(cdyn_lemke(&lcp, &o, z2, w2, &rep), CDYN_OK);
    assert_int_equal(rep.iterations, 0);
    for (int i = 0; i < n; ++i)
        assert_true(fabs(z[i] - z2[i]) <= 1e-12);
    assert_lcp_solution(&lcp, z2, w2, 1e-10);
}

/* Consecutive time steps: the next problem differs a little; the old basis is a better start. */
static void test_warm_start_perturbed(void **state)
{
    (void)state;
    enum { n = 120 };
    double *M = malloc(sizeof(double) * n * n), q[n], z[n], w[n], zc[n], wc[n];
    int basis[n];
    int cold_total = 0, warm_total = 0;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        test_rng rng;
        test_rng_seed(&rng, 600 + seed);
        lcpgen_spd(&rng, n, M, q);
        cdyn_lcp lcp = {n, M, q};
        assert_int_equal(cdyn_lemke_ex(&lcp, NULL, z, w, basis, NULL), CDYN_OK);
        for (int i = 0; i < n; ++i)
            q[i] += 0.05 * test_rng_range(&rng, -1.0, 1.0);
        for (int k = 0; k < n * n; ++k)
            M[k] *= 1.0 + 0.01 * test_rng_range(&rng, -1.0, 1.0) * (k % (n + 1) == 0);
        cdyn_report cold, warm;
        assert_int_equal(cdyn_lemke(&lcp, NULL, zc, wc, &cold), CDYN_OK);
        cdyn_lemke_options o;
        cdyn_lemke_defaults(&o);
        o.warm_basis = basis;
        assert_int_equal(cdyn_lemke(&lcp, &o, z, w, &warm), CDYN_OK);
        assert_true(warm.iterations < cold.iterations);
        assert_lcp_solution(&lcp, z, w, 1e-10);
        /* Still positive definite (the diagonal moved by <= 0.01 max M_ii < 0.01, below
           lambda_min(M) >= 0.1), so the solution is unique and both runs must agree. */
        for (int i = 0; i < n; ++i)
            assert_true(fabs(z[i] - zc[i]) <= 1e-10);
        cold_total += cold.iterations;
        warm_total += warm.iterations;
    }
    assert_true(4 * warm_total < cold_total);
    free(M);
}

/* Friction pyramid: the degenerate solution needs the solver's own basis (the guess z_i > w_i
 * may be singular there); with it, the same problem takes 0 pivots and a step with larger gaps
 * (q_n up, which keeps it solvable) takes fewer pivots than a cold start. */
static void test_warm_start_pyramid(void **state)
{
    (void)state;
    const int nc = 30, n = lcpgen_pyramid_size(nc);
    double *M = malloc(sizeof(double) * (size_t)n * n), *q = malloc(sizeof(double) * n);
    double *z = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
    int *basis = malloc(sizeof(int) * n);
    test_rng rng;
    test_rng_seed(&rng, 8080);
    lcpgen_pyramid(&rng, nc, 0.5, M, q);
    cdyn_lcp lcp = {n, M, q};
    cdyn_report cold, warm;
    assert_int_equal(cdyn_lemke_ex(&lcp, NULL, z, w, basis, &cold), CDYN_OK);
    cdyn_lemke_options o;
    cdyn_lemke_defaults(&o);
    o.warm_basis = basis;
    assert_int_equal(cdyn_lemke(&lcp, &o, z, w, &warm), CDYN_OK);
    assert_int_equal(warm.iterations, 0);
    assert_lcp_solution(&lcp, z, w, 1e-10);
    for (int c = 0; c < nc; ++c)
        q[c] += 0.01 * test_rng_uniform(&rng);
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, &cold), CDYN_OK);
    assert_int_equal(cdyn_lemke(&lcp, &o, z, w, &warm), CDYN_OK);
    assert_true(warm.iterations < cold.iterations);
    assert_lcp_solution(&lcp, z, w, 1e-10);
    free(M);
    free(q);
    free(z);
    free(w);
    free(basis);
}

/* A singular guess (CPS_1 with both z basic: M = ones(2) is singular) falls back to a cold
 * start and still solves. */
static void test_warm_start_singular_guess(void **state)
{
    (void)state;
    const double M[] = {1, 1, 1, 1}, q[] = {-1, -1};
    const int guess[] = {1, 1};
    cdyn_lcp lcp = {2, M, q};
    cdyn_lemke_options o;
    cdyn_lemke_defaults(&o);
    o.warm_basis = guess;
    double z[2], w[2];
    assert_int_equal(cdyn_lemke(&lcp, &o, z, w, NULL), CDYN_OK);
    assert_true(fabs(z[0] + z[1] - 1.0) <= 1e-14);
}

/* ---- small problems: the dense-tableau path (n <= 8) ---------------------------------------- */

/* The unique solution of a P-matrix LCP by enumeration (independent of Lemke). */
static void enumerate_unique(const cdyn_lcp *lcp, double *ze)
{
    int count = 0;
    assert_int_equal(cdyn_lcp_enumerate(lcp, ze, 1, &count, NULL, NULL), CDYN_OK);
    assert_int_equal(count, 1);
}

/* Warm starts on small problems pivot from a tableau built from the factorized guess: from the
 * solver's own basis after q moved (the unique solution is checked against enumeration), and
 * from the complement of that basis, a wrong guess that makes the path long. */
static void test_small_warm_starts(void **state)
{
    (void)state;
    for (int n = 2; n <= 9; ++n)
        for (uint64_t seed = 1; seed <= 6; ++seed) {
            double M[81], q[9], z[9], w[9], ze[9];
            int basis[9], wrong[9];
            test_rng rng;
            test_rng_seed(&rng, 7000 + 10 * (uint64_t)n + seed);
            lcpgen_pmatrix(&rng, n, M, q);
            cdyn_lcp lcp = {n, M, q};
            assert_int_equal(cdyn_lemke_ex(&lcp, NULL, z, w, basis, NULL), CDYN_OK);
            for (int i = 0; i < n; ++i) {
                q[i] += 0.3 * test_rng_range(&rng, -1.0, 1.0);
                wrong[i] = !basis[i];
            }
            enumerate_unique(&lcp, ze);
            cdyn_lemke_options o;
            cdyn_lemke_defaults(&o);
            for (int g = 0; g < 2; ++g) {
                o.warm_basis = g == 0 ? basis : wrong;
                cdyn_report rep;
                assert_int_equal(cdyn_lemke(&lcp, &o, z, w, &rep), CDYN_OK);
                assert_lcp_solution(&lcp, z, w, 1e-10);
                for (int i = 0; i < n; ++i)
                    assert_true(fabs(z[i] - ze[i]) <= 1e-10);
            }
        }
}

/* Rebuilding after every pivot (the tableau from LU factors each time) changes only rounding:
 * on nondegenerate P-matrix problems the path, hence the pivot count, is the same, and the
 * solution is the unique one. Also across the switch to the stored inverse at n = 9. */
static void test_small_refactor_every_pivot(void **state)
{
    (void)state;
    for (int n = 2; n <= 10; ++n)
        for (uint64_t seed = 1; seed <= 5; ++seed) {
            double M[100], q[10], z[10], w[10], z1[10], w1[10], ze[10];
            test_rng rng;
            test_rng_seed(&rng, 8100 + 10 * (uint64_t)n + seed);
            lcpgen_spd(&rng, n, M, q);
            cdyn_lcp lcp = {n, M, q};
            enumerate_unique(&lcp, ze);
            cdyn_lemke_options o;
            cdyn_lemke_defaults(&o);
            cdyn_report r0, r1;
            assert_int_equal(cdyn_lemke(&lcp, &o, z, w, &r0), CDYN_OK);
            o.refactor_every = 1;
            assert_int_equal(cdyn_lemke(&lcp, &o, z1, w1, &r1), CDYN_OK);
            assert_int_equal(r0.iterations, r1.iterations);
            for (int i = 0; i < n; ++i) {
                assert_true(fabs(z[i] - ze[i]) <= 1e-12);
                assert_true(fabs(z1[i] - ze[i]) <= 1e-12);
            }
        }
}

/* lcp_CPS_4 (columns of M: (11,0,10,1), (0,11,10,1), (10,10,21,1), (-1,-1,-1,0); q = (50, 50,
 * 10, -6)) has the solution z = (2, 2, 2, 92), w = 0 (check: 22 + 20 - 92 + 50 = 0, 20 + 20 + 42
 * - 92 + 10 = 0, 2 + 2 + 2 - 6 = 0), exactly representable. Rounding in the pivots leaves z a
 * few ulps off; the final refinement, whose residual is accumulated in long double, lands on it
 * where long double is wider than double (x86), within a few ulps otherwise. */
static void test_final_refinement_accuracy(void **state)
{
    (void)state;
    const double M[] = {11, 0, 10, 1, 0, 11, 10, 1, 10, 10, 21, 1, -1, -1, -1, 0};
    const double q[] = {50, 50, 10, -6}, zexp[] = {2, 2, 2, 92};
    cdyn_lcp lcp = {4, M, q};
    double z[4], w[4];
    cdyn_report rep;
    assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, &rep), CDYN_OK);
    const double ulps = LDBL_MANT_DIG > DBL_MANT_DIG ? 0.0 : 8.0;
    for (int i = 0; i < 4; ++i)
        assert_true(fabs(z[i] - zexp[i]) <= ulps * DBL_EPSILON * zexp[i]);
    if (LDBL_MANT_DIG > DBL_MANT_DIG)
        assert_true(rep.residual == 0.0 && cdyn_lcp_residual(&lcp, z) == 0.0);
    assert_lcp_solution(&lcp, z, w, 1e-12);
}

/* ---- bad input, allocation failure ---------------------------------------------------- */

static void expect_einval(const cdyn_lcp *lcp, const cdyn_lemke_options *o, double *z, double *w)
{
    cdyn_report rep;
    int n = (lcp != NULL && lcp->n > 0) ? lcp->n : 0;
    if (z != NULL)
        fill(z, n, SENTINEL);
    if (w != NULL)
        fill(w, n, SENTINEL);
    assert_int_equal(cdyn_lemke(lcp, o, z, w, &rep), CDYN_EINVAL);
    assert_int_equal(rep.status, CDYN_EINVAL);
    assert_true(strlen(rep.message) > 0);
    cdyn_lcp_options lo;
    cdyn_lcp_defaults(&lo);
    if (o != NULL)
        lo.lemke = *o;
    assert_int_equal(cdyn_lcp_solve(lcp, &lo, z, w, &rep), CDYN_EINVAL);
    assert_true(strlen(rep.message) > 0);
    if (z != NULL)
        assert_filled(z, n, SENTINEL);
    if (w != NULL)
        assert_filled(w, n, SENTINEL);
}

static void test_bad_input(void **state)
{
    (void)state;
    double M[] = {2, 1, 1, 2}, q[] = {-1, -1}, z[2], w[2];
    cdyn_lcp lcp = {2, M, q};
    expect_einval(NULL, NULL, z, w);
    expect_einval(&lcp, NULL, NULL, w);
    expect_einval(&lcp, NULL, z, NULL);
    cdyn_lcp bad = lcp;
    bad.M = NULL;
    expect_einval(&bad, NULL, z, w);
    bad = lcp;
    bad.q = NULL;
    expect_einval(&bad, NULL, z, w);
    bad = lcp;
    bad.n = 0;
    expect_einval(&bad, NULL, z, w);
    bad.n = -3;
    expect_einval(&bad, NULL, z, w);
    M[2] = NAN;
    expect_einval(&lcp, NULL, z, w);
    M[2] = INFINITY;
    expect_einval(&lcp, NULL, z, w);
    M[2] = 1.0;
    q[1] = -INFINITY;
    expect_einval(&lcp, NULL, z, w);
    q[1] = NAN;
    expect_einval(&lcp, NULL, z, w);
    q[1] = -1.0;

    cdyn_lemke_options o;
    double d[2] = {1.0, 0.0};
    cdyn_lemke_defaults(&o);
    o.covering = d;
    expect_einval(&lcp, &o, z, w); /* d_i = 0 */
    d[1] = -1.0;
    expect_einval(&lcp, &o, z, w);
    d[1] = NAN;
    expect_einval(&lcp, &o, z, w);
    d[1] = INFINITY;
    expect_einval(&lcp, &o, z, w);
    cdyn_lemke_defaults(&o);
    o.pivot_tol = NAN;
    expect_einval(&lcp, &o, z, w);
    cdyn_lemke_defaults(&o);
    o.tie_tol = -1.0;
    expect_einval(&lcp, &o, z, w);
    cdyn_lemke_defaults(&o);
    o.tol = -1e-10;
    expect_einval(&lcp, &o, z, w);
    o.tol = NAN;
    expect_einval(&lcp, &o, z, w);
    cdyn_lemke_defaults(&o);
    o.max_pivots = -1;
    expect_einval(&lcp, &o, z, w);
}

static void test_allocation_failure(void **state)
{
    (void)state;
    const double M[] = {2, 1, 1, 2}, q[] = {-5, -6};
    cdyn_lcp lcp = {2, M, q};
    double z[2] = {SENTINEL, SENTINEL}, w[2] = {SENTINEL, SENTINEL};
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, 0);
    cdyn_lemke_options o;
    cdyn_lemke_defaults(&o);
    o.allocator = &fa.allocator;
    cdyn_report rep;
    assert_int_equal(cdyn_lemke(&lcp, &o, z, w, &rep), CDYN_ENOMEM);
    assert_true(strlen(rep.message) > 0);
    assert_int_equal(fa.live, 0);
    assert_filled(z, 2, SENTINEL);
    assert_filled(w, 2, SENTINEL);
    /* The successful call through the same allocator frees everything it took. */
    test_failing_alloc_init(&fa, -1);
    assert_int_equal(cdyn_lemke(&lcp, &o, z, w, &rep), CDYN_OK);
    assert_true(fa.allocations > 0);
    assert_int_equal(fa.live, 0);
}

/* The fallback chain allocates more than once (CPS_3 goes through alternate coverings and maybe
 * enumeration): every allocation failure point gives CDYN_ENOMEM, no leak, untouched outputs. */
static void test_allocation_failure_chain(void **state)
{
    (void)state;
    const double M[] = {0, 0, 10, 30, 0, 0, 20, 15, 10, 30, 0, 0, 20, 15, 0, 0};
    const double q[] = {-1, -1, -1, -1};
    cdyn_lcp lcp = {4, M, q};
    cdyn_lcp_options o;
    cdyn_lcp_defaults(&o);
    test_failing_alloc fa;
    o.lemke.allocator = &fa.allocator;
    double z[4], w[4];
    int needed = -1;
    for (int k = 0; k < 32 && needed < 0; ++k) {
        test_failing_alloc_init(&fa, k);
        fill(z, 4, SENTINEL);
        fill(w, 4, SENTINEL);
        cdyn_status st = cdyn_lcp_solve(&lcp, &o, z, w, NULL);
        assert_int_equal(fa.live, 0);
        if (st == CDYN_OK) {
            needed = k;
        } else {
            assert_int_equal(st, CDYN_ENOMEM);
            assert_filled(z, 4, SENTINEL);
            assert_filled(w, 4, SENTINEL);
        }
    }
    assert_true(needed > 1); /* the chain did allocate more than once */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_2x2_both_positive),
        cmocka_unit_test(test_2x2_one_positive),
        cmocka_unit_test(test_murty_q_ones),
        cmocka_unit_test(test_murty_exponential),
        cmocka_unit_test(test_pivot_limit),
        cmocka_unit_test(test_cps1_solution_set),
        cmocka_unit_test(test_pang_isolated),
        cmocka_unit_test(test_cps3_bimatrix_needs_fallback),
        cmocka_unit_test(test_infeasible),
        cmocka_unit_test(test_ray_copositive_plus),
        cmocka_unit_test(test_random_spd_lcps),
        cmocka_unit_test(test_random_pmatrix_lcps),
        cmocka_unit_test(test_pyramid_small),
        cmocka_unit_test(test_pyramid_large),
        cmocka_unit_test(test_trivial_q_nonnegative),
        cmocka_unit_test(test_zero_row),
        cmocka_unit_test(test_repeated_ties),
        cmocka_unit_test(test_lexicographic_rule_prevents_cycling),
        cmocka_unit_test(test_zeros_in_q),
        cmocka_unit_test(test_covering_vector),
        cmocka_unit_test(test_refactor_settings),
        cmocka_unit_test(test_success_needs_residual),
        cmocka_unit_test(test_warm_start_exact_basis),
        cmocka_unit_test(test_warm_start_perturbed),
        cmocka_unit_test(test_warm_start_pyramid),
        cmocka_unit_test(test_warm_start_singular_guess),
        cmocka_unit_test(test_small_warm_starts),
        cmocka_unit_test(test_small_refactor_every_pivot),
        cmocka_unit_test(test_final_refinement_accuracy),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_allocation_failure),
        cmocka_unit_test(test_allocation_failure_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
