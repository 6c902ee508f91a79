/* The 3-D frictional contact solvers (cdyn/fc3d.h): single contacts against closed forms,
 * the Newton functions' Jacobians against central differences, random multi-contact problems
 * solved by all three solvers (which must agree: the solution is unique for small mu), a problem
 * without solution, bad input and failing allocations. The shared problem files are solved in
 * test_fc3d_files.c. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/fc3d.h"
#include "solvers/fc3d/fc3d_internal.h"
#include "support.h"

static double residual_rel(const cdyn_fc3d *p, const double *r)
{
    double abs_res = NAN, rel = NAN;
    assert_int_equal(cdyn_fc3d_residual(p, r, NULL, &abs_res, &rel), CDYN_OK);
    return rel;
}

/* Run the three solvers and the default entry on one problem; each must succeed and give r. */
typedef cdyn_status (*solve_fn)(const cdyn_fc3d *p, double *r, double *u, cdyn_fc3d_report *rep);

static cdyn_status run_default(const cdyn_fc3d *p, double *r, double *u, cdyn_fc3d_report *rep)
{
    return cdyn_fc3d_solve(p, NULL, r, u, rep);
}
static cdyn_status run_nsgs(const cdyn_fc3d *p, double *r, double *u, cdyn_fc3d_report *rep)
{
    return cdyn_fc3d_nsgs(p, NULL, r, u, rep);
}
static cdyn_status run_ac(const cdyn_fc3d *p, double *r, double *u, cdyn_fc3d_report *rep)
{
    return cdyn_fc3d_newton(p, NULL, r, u, rep);
}
static cdyn_status run_fb(const cdyn_fc3d *p, double *r, double *u, cdyn_fc3d_report *rep)
{
    cdyn_fc3d_newton_options o;
    cdyn_fc3d_newton_defaults(&o);
    o.formulation = CDYN_FC3D_FISCHER_BURMEISTER;
    return cdyn_fc3d_newton(p, &o, r, u, rep);
}
static cdyn_status run_ac_sparse(const cdyn_fc3d *p, double *r, double *u, cdyn_fc3d_report *rep)
{
    cdyn_fc3d_newton_options o;
    cdyn_fc3d_newton_defaults(&o);
    o.linear = CDYN_FC3D_LINEAR_SPARSE;
    return cdyn_fc3d_newton(p, &o, r, u, rep);
}
static cdyn_status run_nsgs_enum(const cdyn_fc3d *p, double *r, double *u, cdyn_fc3d_report *rep)
{
    cdyn_fc3d_nsgs_options o;
    cdyn_fc3d_nsgs_defaults(&o);
    o.local = CDYN_FC3D_LOCAL_ENUM;
    return cdyn_fc3d_nsgs(p, &o, r, u, rep);
}

static const solve_fn SOLVERS[] = {run_default, run_nsgs, run_ac, run_fb, run_ac_sparse,
                                   run_nsgs_enum};
#define NSOLVERS ((int)(sizeof SOLVERS / sizeof SOLVERS[0]))

/* One contact with W = w I: every mode has a closed form. */
static void one_contact_case(double w, const double *q, double mu, const double *expect)
{
    double W[9] = {w, 0, 0, 0, w, 0, 0, 0, w};
    cdyn_fc3d p = {1, W, NULL, q, &mu};
    for (int s = 0; s < NSOLVERS; s++) {
        double r[3] = {0, 0, 0}, u[3];
        cdyn_fc3d_report rep;
        assert_int_equal(SOLVERS[s](&p, r, u, &rep), CDYN_OK);
        /* The solvers stop at relative residual 1e-10; W = w I is well conditioned, so r is
           within a small multiple of that of the exact answer. */
        for (int a = 0; a < 3; a++)
            if (!(fabs(r[a] - expect[a]) <= 1e-9 * (1.0 + fabs(expect[a]))))
                fail_msg("solver %d: r[%d] = %.17g, expected %.17g", s, a, r[a], expect[a]);
        for (int a = 0; a < 3; a++) /* u = W r + q returned */
            assert_true(fabs(u[a] - (q[a] + w * r[a])) <= 1e-12 * (1.0 + fabs(q[a])));
        assert_true(rep.residual_rel <= 1e-10);
    }
}

static void test_single_contact_modes(void **state)
{
    (void)state;
    /* Take-off: q_N >= 0, r = 0. */
    double q1[3] = {0.5, 3.0, -1.0}, e1[3] = {0, 0, 0};
    one_contact_case(2.0, q1, 0.3, e1);
    /* Stick: u = 0 gives r = -q / w, inside the cone (||q_T|| = 0.5 <= mu |q_N| = 0.6). */
    double q2[3] = {-2.0, 0.3, -0.4}, e2[3] = {1.0, -0.15, 0.2};
    one_contact_case(2.0, q2, 0.3, e2);
    /* Slip: u_N = 0 gives r_N = -q_N / w = 1; r_T = -mu r_N q_T / ||q_T|| (||q_T|| = 5). */
    double q3[3] = {-2.0, 3.0, -4.0}, e3[3] = {1.0, -0.3 * 3.0 / 5.0, 0.3 * 4.0 / 5.0};
    one_contact_case(2.0, q3, 0.3, e3);
    /* Frictionless: r_T = 0, r_N = -q_N / w. */
    double q4[3] = {-2.0, 3.0, -4.0}, e4[3] = {1.0, 0.0, 0.0};
    one_contact_case(2.0, q4, 0.0, e4);
    /* Frictionless take-off moving straight along the normal (u_T = 0): r = 0, never the
       pulling r_N = -q_N / w (a cone projection that let mu = 0, x_T = 0, x_N < 0 through
       once accepted it). */
    double q5[3] = {1.0, 0.0, 0.0}, e5[3] = {0.0, 0.0, 0.0};
    one_contact_case(1.0, q5, 0.0, e5);
}

/* The natural map of mu = 0 with x_T = 0: the pulling reaction is not a solution. */
static void test_frictionless_residual(void **state)
{
    (void)state;
    double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {1.0, 0.0, 0.0}, mu = 0.0;
    cdyn_fc3d p = {1, W, NULL, q, &mu};
    double pull[3] = {-1.0, 0.0, 0.0}, zero[3] = {0.0, 0.0, 0.0}, abs_res, rel;
    /* r = 0: u = q = (1, 0, 0), e = 0 - P(0 - u) = 0; the residual is then only the rounding
       bound, (k + 2) eps (1 + mu) |q| with k = 4 terms per component (q_i and three of W) */
    const double bound = 6 * DBL_EPSILON;
    assert_int_equal(cdyn_fc3d_residual(&p, zero, NULL, &abs_res, &rel), CDYN_OK);
    assert_true(fabs(abs_res - bound) <= 1e-30);
    /* r = (-1, 0, 0): u = 0, e = r - P(r) = r - 0, |e| = 1 (plus the bound, now |W||r| + |q|) */
    assert_int_equal(cdyn_fc3d_residual(&p, pull, NULL, &abs_res, &rel), CDYN_OK);
    assert_true(fabs(abs_res - 1.0) <= 20 * DBL_EPSILON);
    /* the projection itself: the ray's polar half goes to 0 */
    double x[3] = {-2.0, 0.0, 0.0};
    fc3d_project_cone(0.0, x);
    assert_true(x[0] == 0.0 && x[1] == 0.0 && x[2] == 0.0);
}

/* A start whose velocity overflows (W r = -inf): the chain must not restart from memory no
 * stage wrote. Every allocation is filled with a different byte pattern: same status and same
 * answer whatever the heap held. */
static void *fill_alloc(void *ctx, size_t size)
{
    void *p = malloc(size);
    if (p != NULL)
        memset(p, *(const int *)ctx, size);
    return p;
}
static void fill_release(void *ctx, void *ptr)
{
    (void)ctx;
    free(ptr);
}

static void test_chain_start_overflow(void **state)
{
    (void)state;
    double W[36] = {0};
    for (int k = 0; k < 6; ++k)
        W[k + 6 * k] = 1.0;
    W[0 + 6 * 3] = W[3 + 6 * 0] = -1e200; /* normal-normal coupling */
    double q[6] = {-1, 0, 0, -1, 0, 0}, mu[2] = {0.3, 0.3};
    cdyn_fc3d p = {2, W, NULL, q, mu};
    double ref[6] = {0};
    cdyn_status st_ref = CDYN_OK;
    for (int pattern = 0; pattern < 3; ++pattern) {
        int byte = pattern == 0 ? 0 : pattern == 1 ? 0xBE : 0x7F;
        cdyn_allocator a = {fill_alloc, fill_release, &byte};
        cdyn_fc3d_options o;
        cdyn_fc3d_defaults(&o);
        o.allocator = &a;
        double r[6] = {1e200, 0, 0, 1e200, 0, 0}, u[6];
        cdyn_fc3d_report rep;
        cdyn_status st = cdyn_fc3d_solve(&p, &o, r, u, &rep);
        if (pattern == 0) {
            st_ref = st;
            memcpy(ref, r, sizeof ref);
        } else {
            assert_int_equal(st, st_ref);
            assert_memory_equal(r, ref, sizeof ref);
        }
    }
}

/* A coupled W (tangent-normal terms): the slip solution's velocity must be parallel to -r_T and
 * u_N = 0; checked from the definition instead of the residual routine. */
static void test_single_contact_coupled_slip(void **state)
{
    (void)state;
    double W[9] = {2.0, 0.3, -0.2, 0.3, 1.5, 0.1, -0.2, 0.1, 1.8}, q[3] = {-1.0, 2.0, 1.0};
    double mu = 0.4;
    cdyn_fc3d p = {1, W, NULL, q, &mu};
    for (int s = 0; s < NSOLVERS; s++) {
        double r[3] = {0, 0, 0}, u[3];
        assert_int_equal(SOLVERS[s](&p, r, u, NULL), CDYN_OK);
        double nrt = hypot(r[1], r[2]), nut = hypot(u[1], u[2]);
        assert_true(r[0] > 0.0);
        assert_true(fabs(u[0]) <= 1e-10);                    /* in contact */
        assert_true(fabs(nrt - mu * r[0]) <= 1e-10);         /* on the cone's boundary */
        assert_true(nut > 1e-3);                             /* sliding */
        assert_true(fabs(r[1] * u[2] - r[2] * u[1]) <= 1e-10); /* r_T parallel to u_T */
        assert_true(r[1] * u[1] + r[2] * u[2] < 0.0);          /* and opposite */
    }
}

/* x := A^{-1} b for a dense n x n column-major A (n <= 6) by Gaussian elimination with partial
 * pivoting, written here so that the reference does not come from the library. */
static void dense_solve_small(int n, const double *A_in, const double *b, double *x)
{
    double A[36], y[6];
    memcpy(A, A_in, sizeof(double) * (size_t)(n * n));
    memcpy(y, b, sizeof(double) * (size_t)n);
    for (int k = 0; k < n; k++) {
        int piv = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(A[i + n * k]) > fabs(A[piv + n * k]))
                piv = i;
        for (int j = 0; j < n; j++) {
            double t = A[k + n * j];
            A[k + n * j] = A[piv + n * j], A[piv + n * j] = t;
        }
        double t = y[k];
        y[k] = y[piv], y[piv] = t;
        for (int i = k + 1; i < n; i++) {
            double f = A[i + n * k] / A[k + n * k];
            for (int j = k; j < n; j++)
                A[i + n * j] -= f * A[k + n * j];
            y[i] -= f * y[k];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        double t = y[i];
        for (int j = i + 1; j < n; j++)
            t -= A[i + n * j] * x[j];
        x[i] = t / A[i + n * i];
    }
}

/* Two contacts holding one sphere of the random-scene stress (seeds 31 and 34 of
 * test_step_random, NMAX 8: the Coulomb step failed there), rounded to three digits. Both
 * contacts stick: the solution is r = -W^{-1} q with both r_i inside their cones (checked here
 * from the definition), u = 0. Newton (Alart–Curnier and Fischer–Burmeister, any rho) stalls
 * from the warm start and from zero — the AC merit's kinks on the way to forces 8 (seed 34) to
 * 50 (seed 31) times ||q|| / W_NN, which W's small eigenvalue allows (0.075 against 66 for
 * seed 31: the two contacts nearly oppose each other) — while 50 Gauss–Seidel sweeps bring the
 * modes to where Newton converges at once. The chain's last stage ran that Newton from the best
 * point instead of Gauss–Seidel's result, i.e. from the stalled Newton point again, and failed. */
static void test_wedged_sphere(void **state)
{
    (void)state;
    /* clang-format off */
    static const double W31[36] = {
        12.3,   0.0,   0.0,   -9.46,  -7.89,   0.834,
        0.0,   43.2,   0.0,    7.91,  21.3,   -1.34,
        0.0,    0.0,  43.2,   -0.641, -0.534, 11.4,
       -9.46,   7.91, -0.641, 12.5,    0.0,    0.0,
       -7.89,  21.3,  -0.534,  0.0,   43.6,    0.0,
        0.834, -1.34, 11.4,    0.0,    0.0,   43.6};
    static const double W34[36] = {
        80.3,   0.0,    0.0,  -71.2,  -32.0,    2.5,
        0.0,  281.0,    0.0,  -32.0, -124.0,    1.12,
        0.0,    0.0,  281.0,   -2.74,  -2.81, 100.0,
       -71.2, -32.0,   -2.74,  78.1,    0.0,    0.0,
       -32.0, -124.0,  -2.81,   0.0,  273.0,    0.0,
        2.5,    1.12, 100.0,    0.0,    0.0,  273.0};
    /* clang-format on */
    static const double q31[6] = {-0.0613, 0.0, 0.0, -0.66, -1.67, 0.351};
    static const double q34[6] = {-0.00705, -0.0506, 0.208, -0.0132, -0.48, 0.0767};
    static const double start31[6] = {0.00496, 0.0, 0.0, 0.0, 0.0, 0.0};
    static const double start34[6] = {0.0, 0.0, 0.0, 0.000334, 0.000282, -7.73e-6};
    const double mu31[2] = {0.551, 0.551}, mu34[2] = {0.843, 0.843};
    const double *Ws[2] = {W31, W34}, *qs[2] = {q31, q34}, *starts[2] = {start31, start34};
    const double *mus[2] = {mu31, mu34};
    for (int c = 0; c < 2; c++) {
        cdyn_fc3d p = {2, Ws[c], NULL, qs[c], mus[c]};
        double mq[6], ref[6];
        for (int k = 0; k < 6; k++)
            mq[k] = -qs[c][k];
        dense_solve_small(6, Ws[c], mq, ref);
        for (int i = 0; i < 2; i++) /* the stick solution is inside both cones */
            assert_true(hypot(ref[3 * i + 1], ref[3 * i + 2]) < 0.8 * mus[c][i] * ref[3 * i]);
        assert_true(residual_rel(&p, ref) <= 1e-12);
        for (int from = 0; from < 2; from++) {
            double r[6] = {0}, u[6];
            if (from == 0)
                memcpy(r, starts[c], sizeof r);
            cdyn_fc3d_report rep;
            assert_int_equal(cdyn_fc3d_solve(&p, NULL, r, u, &rep), CDYN_OK);
            assert_true(rep.residual_rel <= 1e-10);
            for (int k = 0; k < 6; k++) {
                assert_true(fabs(r[k] - ref[k]) <= 1e-8 * fabs(ref[0]));
                assert_true(fabs(u[k]) <= 1e-10 * 2.0);
            }
        }
    }
}

/* The step after a wedge (stress seed 28, 30 spheres, step 43 of the Coulomb step), six
 * digits: the last step's impulses, the warm start, hold the wedge's forces (r_N ~ 2.1 on both
 * contacts), but now contact 1 separates and contact 0 only carries a weight. The solution in
 * closed form: r_0 = (-q_0N / W_00NN, 0, 0) (contact 0's tangential q and W_TN vanish, so
 * u_0 = 0) and r_1 = 0 with u_1N = q_1N + W_10 r_0 > 0. From the warm start every stage of the
 * chain stalled (natural map 8e-3); from 0 one Gauss–Seidel sweep solves it. */
static void test_released_wedge(void **state)
{
    (void)state;
    /* clang-format off */
    static const double W[36] = {
        1.96412,  0.0,      0.0,     0.079357, -0.0603897, 1.96159,
        0.0,      6.87444,  0.0,     1.561,    -1.1879,   -4.00727,
        0.0,      0.0,      6.87444, -1.18944, -1.81232,   2.96976,
        0.079357, 1.561,   -1.18944,  2.11729,  0.0,       0.0,
       -0.0603897, -1.1879, -1.81232, 0.0,     7.41052,    0.0,
        1.96159, -4.00727,  2.96976,  0.0,      0.0,       7.41052};
    /* clang-format on */
    static const double q[6] = {-0.0682095, 0.0, 0.0, 0.00355544, 0.00224426, -0.00223708};
    static const double warm[6] = {2.08654, -1.70493, 1.40088, 2.18404, 0.252534, -2.16159};
    const double mu[2] = {1.20394, 1.20394};
    cdyn_fc3d p = {2, W, NULL, q, mu};
    double ref[6] = {-q[0] / W[0], 0.0, 0.0, 0.0, 0.0, 0.0}, uref[6];
    for (int a = 0; a < 6; a++) {
        uref[a] = q[a];
        for (int b = 0; b < 6; b++)
            uref[a] += W[a + 6 * b] * ref[b];
    }
    assert_true(fabs(uref[0]) + fabs(uref[1]) + fabs(uref[2]) <= 1e-15); /* contact 0 sticks */
    assert_true(uref[3] > 1e-3);                                          /* contact 1 opens */
    assert_true(residual_rel(&p, ref) <= 1e-13);
    assert_true(residual_rel(&p, warm) > 1.0);
    double r[6], u[6];
    memcpy(r, warm, sizeof r);
    cdyn_fc3d_report rep;
    assert_int_equal(cdyn_fc3d_solve(&p, NULL, r, u, &rep), CDYN_OK);
    assert_true(rep.residual_rel <= 1e-10);
    for (int k = 0; k < 6; k++)
        assert_true(fabs(r[k] - ref[k]) <= 1e-10 * ref[0]);
}

/* Central differences of phi(r, u) against the blocks A and B. */
typedef void (*phi_fn)(double mu, const double *r, const double *u, double *phi, double *A,
                       double *B);

static void ac_unit(double mu, const double *r, const double *u, double *phi, double *A,
                    double *B)
{
    fc3d_ac(mu, 0.7, 1.3, r, u, phi, A, B);
}

static void check_jacobian(phi_fn f, double mu, const double *r, const double *u)
{
    double phi[3], A[9], B[9];
    f(mu, r, u, phi, A, B);
    const double h = 1e-6;
    for (int b = 0; b < 3; b++) {
        for (int which = 0; which < 2; which++) {
            double rp[3], rm[3], up[3], um[3], pp[3], pm[3];
            memcpy(rp, r, sizeof rp), memcpy(rm, r, sizeof rm);
            memcpy(up, u, sizeof up), memcpy(um, u, sizeof um);
            if (which == 0)
                rp[b] += h, rm[b] -= h;
            else
                up[b] += h, um[b] -= h;
            f(mu, rp, up, pp, NULL, NULL);
            f(mu, rm, um, pm, NULL, NULL);
            for (int a = 0; a < 3; a++) {
                double fd = (pp[a] - pm[a]) / (2 * h);
                double an = which == 0 ? A[a + 3 * b] : B[a + 3 * b];
                assert_true(fabs(fd - an) <= 1e-7 * (1.0 + fabs(fd)));
            }
        }
    }
}

static void test_jacobians_fd(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 42);
    int checked = 0;
    for (int k = 0; k < 400; k++) {
        double mu = k % 7 == 0 ? 0.0 : test_rng_range(&rng, 0.05, 1.0);
        double r[3], u[3];
        for (int a = 0; a < 3; a++) {
            r[a] = test_rng_range(&rng, -1.0, 1.0);
            u[a] = test_rng_range(&rng, -1.0, 1.0);
        }
        /* Stay away from the kinks (differences there compare one-sided pieces): the normal
           switch r_N - rho u_N = 0, the disk's edge, u_T = 0 and the FB cone boundaries. */
        double sn = r[0] - 0.7 * u[0];
        double R = sn > 0 ? mu * sn : 0.0, nz = hypot(r[1] - 1.3 * u[1], r[2] - 1.3 * u[2]);
        if (fabs(sn) < 1e-3 || fabs(nz - R) < 1e-3 || hypot(u[1], u[2]) < 1e-3)
            continue;
        check_jacobian(ac_unit, mu, r, u);
        check_jacobian(fc3d_fb, mu, r, u);
        checked++;
    }
    assert_true(checked > 200);
}

/* W = J M^{-1} J^T for nb bodies (unit mass, diagonal inertia) and n contacts between random
 * pairs, written as dense matrix (positive semidefinite by construction). */
static void random_problem(test_rng *rng, int n, int nbody, double mu_max, double *W, double *q,
                           double *mu)
{
    int m = 3 * n, nv = 6 * nbody;
    double J[3 * 12 * 6 * 12];
    assert_true(m <= 36 && nv <= 72);
    memset(J, 0, sizeof J);
    for (int i = 0; i < n; i++) {
        int b1 = i % nbody, b2 = (i * 7 + 3) % nbody;
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 6; c++) {
                J[(3 * i + a) + m * (6 * b1 + c)] += test_rng_range(rng, -1.0, 1.0);
                if (b2 != b1)
                    J[(3 * i + a) + m * (6 * b2 + c)] += test_rng_range(rng, -1.0, 1.0);
            }
        q[3 * i] = test_rng_range(rng, -1.0, 0.3);
        q[3 * i + 1] = test_rng_range(rng, -1.0, 1.0);
        q[3 * i + 2] = test_rng_range(rng, -1.0, 1.0);
        mu[i] = test_rng_range(rng, 0.0, mu_max);
    }
    for (int a = 0; a < m; a++)
        for (int b = 0; b < m; b++) {
            double s = 0.0;
            for (int c = 0; c < nv; c++)
                s += J[a + m * c] * J[b + m * c];
            W[a + m * b] = s + (a == b ? 1e-3 : 0.0);
        }
}

/* Dense W to blocks, for the sparse path. */
static void to_blocks(int n, const double *W, int *rowptr, int *colind, double *values)
{
    int m = 3 * n, k = 0;
    rowptr[0] = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            colind[k] = j;
            for (int b = 0; b < 3; b++)
                for (int a = 0; a < 3; a++)
                    values[9 * k + a + 3 * b] = W[(3 * i + a) + m * (3 * j + b)];
            k++;
        }
        rowptr[i + 1] = k;
    }
}

static void test_random_agree(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 7);
    for (int trial = 0; trial < 20; trial++) {
        int n = 2 + trial % 10, m = 3 * n;
        double W[36 * 36], q[36], mu[12];
        random_problem(&rng, n, 1 + n / 2, 0.3, W, q, mu);
        int rowptr[13], colind[144];
        double values[9 * 144];
        to_blocks(n, W, rowptr, colind, values);
        cdyn_fc3d_blocks bl = {rowptr, colind, values};
        cdyn_fc3d dense = {n, W, NULL, q, mu}, sparse = {n, NULL, &bl, q, mu};
        double ref[36] = {0};
        assert_int_equal(cdyn_fc3d_solve(&dense, NULL, ref, NULL, NULL), CDYN_OK);
        assert_true(residual_rel(&dense, ref) <= 1e-10);
        double rn = 0.0;
        for (int k = 0; k < m; k++)
            rn = fmax(rn, fabs(ref[k]));
        for (int s = 0; s < NSOLVERS; s++) {
            for (int form = 0; form < 2; form++) {
                double r[36] = {0};
                cdyn_fc3d_report rep;
                cdyn_status st = SOLVERS[s](form ? &sparse : &dense, r, NULL, &rep);
                assert_int_equal(st, CDYN_OK);
                assert_true(rep.residual_rel <= 1e-10);
                assert_true(residual_rel(&dense, r) <= 1e-10);
                /* Unique solution (W positive definite, mu <= 0.3 here): agree. */
                for (int k = 0; k < m; k++)
                    assert_true(fabs(r[k] - ref[k]) <= 1e-6 * (1.0 + rn));
            }
        }
    }
}

/* Two contacts with opposite normals on one body: u_N1 + u_N2 = q_N1 + q_N2 = -2 < 0 whatever
 * r, so no solution exists. Every solver must fail cleanly and leave r alone. */
static void test_no_solution(void **state)
{
    (void)state;
    double W[36] = {0};
    /* J = [e; -e] on the normal: W_NN = [[1, -1], [-1, 1]], tangents decoupled (identity). */
    W[0 + 6 * 0] = 1, W[3 + 6 * 3] = 1, W[0 + 6 * 3] = -1, W[3 + 6 * 0] = -1;
    W[1 + 6 * 1] = W[2 + 6 * 2] = W[4 + 6 * 4] = W[5 + 6 * 5] = 1;
    double q[6] = {-1, 0, 0, -1, 0, 0}, mu[2] = {0.5, 0.5};
    cdyn_fc3d p = {2, W, NULL, q, mu};
    for (int s = 0; s < NSOLVERS; s++) {
        double r[6] = {1, 2, 3, 4, 5, 6}, u[6] = {9, 9, 9, 9, 9, 9};
        cdyn_fc3d_report rep;
        cdyn_status st = SOLVERS[s](&p, r, u, &rep);
        if (!(st == CDYN_ENOCONV || st == CDYN_ENUMERIC || st == CDYN_ESINGULAR))
            fail_msg("solver %d: status %d (%s), residual %g", s, st, rep.message,
                     rep.residual_rel);
        assert_int_equal(rep.status, st);
        assert_true(strlen(rep.message) > 0);
        assert_true(rep.residual_rel > 1e-3);
        for (int k = 0; k < 6; k++) {
            assert_true(r[k] == k + 1);
            assert_true(u[k] == 9);
        }
    }
}

/* W = 0 (a contact without mass behind it) with q_N < 0: no solution; NSGS names the block. */
static void test_singular_w(void **state)
{
    (void)state;
    double W[9] = {0}, q[3] = {-1.0, 0.0, 0.0}, mu = 0.5;
    cdyn_fc3d p = {1, W, NULL, q, &mu};
    double r[3] = {0, 0, 0};
    cdyn_fc3d_report rep;
    assert_int_equal(cdyn_fc3d_nsgs(&p, NULL, r, NULL, &rep), CDYN_ESINGULAR);
    assert_non_null(strstr(rep.message, "W_00"));
    for (int s = 0; s < NSOLVERS; s++)
        assert_int_not_equal(SOLVERS[s](&p, r, NULL, NULL), CDYN_OK);
}

static void test_bad_input(void **state)
{
    (void)state;
    double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {-1, 0, 0}, mu = 0.5, r[3] = {0, 0, 0};
    int rowptr[2] = {0, 1}, colind[1] = {0};
    cdyn_fc3d_blocks bl = {rowptr, colind, W};
    cdyn_fc3d ok = {1, W, NULL, q, &mu};
    cdyn_fc3d_report rep;
    cdyn_fc3d bad[8];
    for (int k = 0; k < 8; k++)
        bad[k] = ok;
    bad[0].n = 0;
    bad[1].W = NULL; /* neither */
    bad[2].blocks = &bl; /* both */
    bad[3].q = NULL;
    bad[4].mu = NULL;
    double mneg = -0.1, qnan[3] = {NAN, 0, 0}, winf[9] = {INFINITY, 0, 0, 0, 1, 0, 0, 0, 1};
    bad[5].mu = &mneg;
    bad[6].q = qnan;
    bad[7].W = winf;
    for (int k = 0; k < 8; k++) {
        assert_int_equal(cdyn_fc3d_check(&bad[k], &rep), CDYN_EINVAL);
        assert_true(strlen(rep.message) > 0);
        for (int s = 0; s < NSOLVERS; s++)
            assert_int_equal(SOLVERS[s](&bad[k], r, NULL, NULL), CDYN_EINVAL);
    }
    assert_int_equal(cdyn_fc3d_check(NULL, NULL), CDYN_EINVAL);
    /* Malformed blocks: a column out of range, then unsorted columns. */
    int ci_bad[1] = {1};
    cdyn_fc3d_blocks bb = {rowptr, ci_bad, W};
    cdyn_fc3d pb = {1, NULL, &bb, q, &mu};
    assert_int_equal(cdyn_fc3d_check(&pb, &rep), CDYN_EINVAL);
    int rp2[3] = {0, 2, 3}, ci2[3] = {1, 0, 1};
    double v2[27] = {0};
    cdyn_fc3d_blocks b2 = {rp2, ci2, v2};
    double q2[6] = {0}, mu2[2] = {0, 0};
    cdyn_fc3d p2 = {2, NULL, &b2, q2, mu2};
    assert_int_equal(cdyn_fc3d_check(&p2, &rep), CDYN_EINVAL);
    /* A non-finite start and bad options. */
    double rnan[3] = {NAN, 0, 0};
    for (int s = 0; s < NSOLVERS; s++)
        assert_int_equal(SOLVERS[s](&ok, rnan, NULL, NULL), CDYN_EINVAL);
    assert_int_equal(cdyn_fc3d_solve(&ok, NULL, NULL, NULL, NULL), CDYN_EINVAL);
    /* Found by fuzzing: a non-finite start with no memory left is still bad input (every
       argument is checked before anything is allocated). */
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, 0);
    cdyn_fc3d_options oa;
    cdyn_fc3d_defaults(&oa);
    oa.allocator = &fa.allocator;
    assert_int_equal(cdyn_fc3d_solve(&ok, &oa, rnan, NULL, NULL), CDYN_EINVAL);
    cdyn_fc3d_nsgs_options ga;
    cdyn_fc3d_nsgs_defaults(&ga);
    ga.allocator = &fa.allocator;
    assert_int_equal(cdyn_fc3d_nsgs(&ok, &ga, rnan, NULL, NULL), CDYN_EINVAL);
    cdyn_fc3d_newton_options na;
    cdyn_fc3d_newton_defaults(&na);
    na.allocator = &fa.allocator;
    assert_int_equal(cdyn_fc3d_newton(&ok, &na, rnan, NULL, NULL), CDYN_EINVAL);
    assert_int_equal(fa.live, 0);
    cdyn_fc3d_nsgs_options go;
    cdyn_fc3d_nsgs_defaults(&go);
    go.omega = 2.0;
    assert_int_equal(cdyn_fc3d_nsgs(&ok, &go, r, NULL, &rep), CDYN_EINVAL);
    cdyn_fc3d_newton_options no;
    cdyn_fc3d_newton_defaults(&no);
    no.nonmonotone = 0;
    assert_int_equal(cdyn_fc3d_newton(&ok, &no, r, NULL, &rep), CDYN_EINVAL);
    cdyn_fc3d_options o;
    cdyn_fc3d_defaults(&o);
    o.tol = NAN;
    assert_int_equal(cdyn_fc3d_solve(&ok, &o, r, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_fc3d_residual(&ok, NULL, NULL, NULL, NULL), CDYN_EINVAL);
}

/* Fail the k-th allocation for every k: CDYN_ENOMEM, r untouched, nothing leaked. */
static void test_failing_allocations(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 3);
    int n = 10;
    double W[30 * 30], q[30], mu[10];
    random_problem(&rng, n, 5, 0.3, W, q, mu);
    cdyn_fc3d p = {n, W, NULL, q, mu};
    for (int variant = 0; variant < 4; variant++) {
        int total = 0;
        for (int k = -1; k < total; k++) { /* k = -1: count the allocations of a clean run */
            test_failing_alloc fa;
            test_failing_alloc_init(&fa, k);
            double r[30], r0[30];
            for (int j = 0; j < 30; j++)
                r[j] = r0[j] = 0.01 * j;
            cdyn_status st;
            if (variant == 0) {
                cdyn_fc3d_options o;
                cdyn_fc3d_defaults(&o);
                o.allocator = &fa.allocator;
                st = cdyn_fc3d_solve(&p, &o, r, NULL, NULL);
            } else if (variant == 1) {
                cdyn_fc3d_nsgs_options o;
                cdyn_fc3d_nsgs_defaults(&o);
                o.allocator = &fa.allocator;
                st = cdyn_fc3d_nsgs(&p, &o, r, NULL, NULL);
            } else {
                cdyn_fc3d_newton_options o;
                cdyn_fc3d_newton_defaults(&o);
                o.linear = variant == 2 ? CDYN_FC3D_LINEAR_DENSE : CDYN_FC3D_LINEAR_SPARSE;
                o.allocator = &fa.allocator;
                st = cdyn_fc3d_newton(&p, &o, r, NULL, NULL);
            }
            assert_int_equal(fa.live, 0);
            if (k < 0) {
                assert_int_equal(st, CDYN_OK);
                total = fa.allocations;
                assert_true(total >= 2);
                continue;
            }
            assert_int_equal(st, CDYN_ENOMEM);
            assert_memory_equal(r, r0, sizeof r);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_contact_modes),
        cmocka_unit_test(test_single_contact_coupled_slip),
        cmocka_unit_test(test_frictionless_residual),
        cmocka_unit_test(test_chain_start_overflow),
        cmocka_unit_test(test_jacobians_fd),
        cmocka_unit_test(test_random_agree),
        cmocka_unit_test(test_wedged_sphere),
        cmocka_unit_test(test_released_wedge),
        cmocka_unit_test(test_no_solution),
        cmocka_unit_test(test_singular_w),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_failing_allocations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
