/* Friction-cone QP against closed-form solutions:
 *  - disk problems (Song-Kumar-Pang Proposition 1) with H = h I: the Euclidean projection of
 *    -c/h onto the disk; with an anisotropic 2x2 H: the projection onto the disk in the
 *    H-metric, i.e. the trust-region subproblem x = -(H + beta I)^{-1} c, ||x|| = r, whose
 *    beta this file finds by bisection on the secular equation;
 *  - cone problems with H = diag(h_n, h_t, h_t): after the change of variables y = H^{1/2} x
 *    the projection onto the cone ||y_t|| <= mu sqrt(h_t/h_n) y_n, for which the textbook
 *    formula applies (sticking / sliding / separated);
 *  - a singular H with a hand-derived optimum, unbounded problems, all-fixed problems, and the
 *    reusable solver against one-shot solves.
 * Each case runs on the dense and on the sparse (CHOLMOD) path. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/coneqp.h"
#include "coneqp_support.h"

/* Solve p on the dense path (p->H) and on the sparse path (lower-triangle CSC copy, and a
 * full-storage copy); each solution goes to xs[path] (3 paths). Returns the worst status. */
static void solve3(const cdyn_coneqp *p, double *xs, double *us, int n, cdyn_status *st,
                   cdyn_coneqp_info *info, cdyn_report *rep)
{
    test_csc lo, full;
    cq_dense_to_csc(n, p->H, 1, &lo);
    cq_dense_to_csc(n, p->H, 0, &full);
    for (int path = 0; path < 3; ++path) {
        cdyn_coneqp q = *p;
        if (path > 0) {
            q.H = NULL;
            q.Hs = path == 1 ? &lo.A : &full.A;
        }
        st[path] = cdyn_coneqp_solve(&q, NULL, xs + (size_t)path * n, us + (size_t)path * n,
                                     info + path, rep + path);
    }
    test_csc_free(&lo);
    test_csc_free(&full);
}

/* The solver's (x, u) against the closed-form optimum xref, with the certificate bounds of
 * coneqp_support.h (all computed here, not by the library): x feasible, u in K*; the objective
 * is at least f(xref) and at most f(xref) + gap + ||r||_inf ||x - xref||_1; with H >= lambda I
 * the distance ||x - xref||_2 obeys the strong-convexity bound. The pair also meets the
 * default stopping test's accuracy (tol_rel = 1e-9, with margin 10 for the norms used here). */
static void expect_optimal(const cdyn_coneqp *p, const double *x, const double *u,
                           const double *xref, double lambda_min)
{
    const int n = cq_nvars(p);
    cq_kkt k, kr;
    cq_kkt_check(p, x, u, &k);
    cq_kkt_check(p, xref, NULL, &kr);
    double xmax = 1.0, umax = 1.0, d1 = 0.0, d2 = 0.0;
    for (int j = 0; j < n; ++j) {
        xmax = fmax(xmax, fabs(x[j]));
        umax = fmax(umax, fabs(u[j]));
        d1 += fabs(x[j] - xref[j]);
        d2 += (x[j] - xref[j]) * (x[j] - xref[j]);
    }
    assert_true(kr.primal <= 1e-14 * xmax); /* the reference itself is feasible */
    assert_true(k.primal <= 1e-14 * xmax);
    assert_true(k.udual <= 1e-14 * umax);
    const double fr = kr.obj, rnd = 1e-14 * (1.0 + fabs(fr));
    assert_true(k.obj - fr >= -rnd);
    assert_true(k.obj - fr <= k.ugap + k.uerr * d1 + rnd);
    if (lambda_min > 0.0)
        assert_true(sqrt(d2) <= cq_distance_bound(&k, n, lambda_min) + 1e-13);
    assert_true(k.uerr <= 1e-8 * fmax(k.scale, umax));
    assert_true(k.ugap <= 1e-8 * fmax(1.0, fabs(k.obj)));
}

/* ---- disk problems ---------------------------------------------------------------------- */

static void test_disk_planar_clip(void **state)
{
    (void)state;
    /* Planar contacts: one tangential variable each, x = clip(-c/h, -r, r). */
    const int nc = 4;
    const double h[4] = {2.0, 0.5, 1.0, 3.0};
    const double c[4] = {-0.5, -5.0, 5.0, 0.3};
    const double mu[4] = {0.5, 0.5, 0.25, 1.0};
    const double ln[4] = {2.0, 2.0, 4.0, 0.7};
    double H[16] = {0};
    for (int i = 0; i < nc; ++i)
        H[i + 4 * i] = h[i];
    cdyn_coneqp p = {0};
    p.ncontacts = nc;
    p.dim = 2;
    p.mu = mu;
    p.normal = ln;
    p.H = H;
    p.c = c;
    double xs[12], us[12];
    cdyn_status st[3];
    cdyn_coneqp_info info[3];
    cdyn_report rep[3];
    solve3(&p, xs, us, nc, st, info, rep);
    double ref[4];
    for (int i = 0; i < nc; ++i) {
        const double r = mu[i] * ln[i];
        ref[i] = fmin(r, fmax(-r, -c[i] / h[i]));
    }
    /* The cases cover the interior and both ends of the interval. */
    assert_true(ref[0] == 0.25 && ref[1] == 1.0 && ref[2] == -1.0 && fabs(ref[3]) < 0.7);
    for (int path = 0; path < 3; ++path) {
        assert_int_equal(st[path], CDYN_OK);
        expect_optimal(&p, xs + 4 * path, us + 4 * path, ref, 0.5);
    }
}

static void test_disk_isotropic_projection(void **state)
{
    (void)state;
    /* Spatial contacts, H = h_i I per contact: x_i = projection of -c_i/h_i onto the disk. */
    const int nc = 3, n = 6;
    const double h[3] = {1.0, 4.0, 0.25};
    const double c[6] = {0.3, -0.2, 3.0, 4.0, -0.01, 0.02};
    const double mu[3] = {0.8, 0.5, 0.3};
    const double ln[3] = {1.0, 2.0, 0.5};
    double H[36] = {0};
    for (int i = 0; i < nc; ++i)
        H[2 * i + n * 2 * i] = H[2 * i + 1 + n * (2 * i + 1)] = h[i];
    cdyn_coneqp p = {0};
    p.ncontacts = nc;
    p.dim = 3;
    p.mu = mu;
    p.normal = ln;
    p.H = H;
    p.c = c;
    double xs[18], us[18];
    cdyn_status st[3];
    cdyn_coneqp_info info[3];
    cdyn_report rep[3];
    solve3(&p, xs, us, n, st, info, rep);
    double ref[6];
    for (int i = 0; i < nc; ++i) {
        const double r = mu[i] * ln[i];
        const double v0 = -c[2 * i] / h[i], v1 = -c[2 * i + 1] / h[i];
        const double f = fmin(1.0, r / hypot(v0, v1));
        ref[2 * i] = f * v0;
        ref[2 * i + 1] = f * v1;
    }
    /* Contacts 0 and 2 inside their disks (|v| = 0.36 < 0.8, 0.089 < 0.15), 1 on the boundary. */
    assert_true(hypot(ref[0], ref[1]) < 0.79 && hypot(ref[4], ref[5]) < 0.14);
    assert_true(fabs(hypot(ref[2], ref[3]) - 1.0) <= 1e-15);
    for (int path = 0; path < 3; ++path) {
        assert_int_equal(st[path], CDYN_OK);
        expect_optimal(&p, xs + n * path, us + n * path, ref, 0.25);
        assert_true(info[path].gap >= 0.0);
        assert_true(info[path].primal_residual == 0.0); /* iterates stay strictly inside */
    }
}

/* x(beta) = -(A + beta I)^{-1} c for a 2x2 SPD A (column-major). */
static void shifted_solve(const double *A, double beta, const double *c, double *x)
{
    const double a = A[0] + beta, b = A[2], d = A[3] + beta;
    const double det = a * d - b * b;
    x[0] = -(d * c[0] - b * c[1]) / det;
    x[1] = -(-b * c[0] + a * c[1]) / det;
}

/* The H-metric projection onto the disk of radius r, i.e. argmin 1/2 x'Ax + c'x, ||x|| <= r:
 * the unconstrained minimizer if it is inside, else the root of ||x(beta)|| = r (decreasing
 * in beta >= 0) by bisection to machine precision. */
static void tr_subproblem(const double *A, const double *c, double r, double *x)
{
    shifted_solve(A, 0.0, c, x);
    if (hypot(x[0], x[1]) <= r)
        return;
    double lo = 0.0, hi = hypot(c[0], c[1]) / r; /* ||x(hi)|| <= ||c|| / hi = r */
    for (int it = 0; it < 300; ++it) {
        const double mid = 0.5 * (lo + hi);
        shifted_solve(A, mid, c, x);
        if (hypot(x[0], x[1]) > r)
            lo = mid;
        else
            hi = mid;
    }
    shifted_solve(A, hi, c, x);
}

static void test_disk_h_metric_projection(void **state)
{
    (void)state;
    /* Block-diagonal anisotropic H: each contact is an independent trust-region subproblem. */
    test_rng g;
    test_rng_seed(&g, 2024);
    const int nc = 8, n = 16;
    double H[256] = {0}, c[16], mu[8], ln[8];
    for (int i = 0; i < nc; ++i) {
        double B[4];
        for (int k = 0; k < 4; ++k)
            B[k] = test_rng_range(&g, -1.0, 1.0);
        const int o = 2 * i;
        H[o + n * o] = B[0] * B[0] + B[2] * B[2] + 0.5;
        H[o + 1 + n * (o + 1)] = B[1] * B[1] + B[3] * B[3] + 0.5;
        H[o + 1 + n * o] = H[o + n * (o + 1)] = B[0] * B[1] + B[2] * B[3];
        c[o] = test_rng_range(&g, -2.0, 2.0);
        c[o + 1] = test_rng_range(&g, -2.0, 2.0);
        mu[i] = test_rng_range(&g, 0.1, 1.0);
        ln[i] = test_rng_range(&g, 0.5, 5.0);
    }
    cdyn_coneqp p = {0};
    p.ncontacts = nc;
    p.dim = 3;
    p.mu = mu;
    p.normal = ln;
    p.H = H;
    p.c = c;
    double xs[48], us[48];
    cdyn_status st[3];
    cdyn_coneqp_info info[3];
    cdyn_report rep[3];
    solve3(&p, xs, us, n, st, info, rep);
    int inside = 0, boundary = 0;
    double ref[16], lmin = INFINITY;
    for (int i = 0; i < nc; ++i) {
        const int o = 2 * i;
        const double A[4] = {H[o + n * o], H[o + 1 + n * o], H[o + n * (o + 1)],
                             H[o + 1 + n * (o + 1)]};
        const double tr = A[0] + A[3], det = A[0] * A[3] - A[1] * A[1];
        lmin = fmin(lmin, 0.5 * tr - sqrt(0.25 * tr * tr - det));
        tr_subproblem(A, c + o, mu[i] * ln[i], ref + o);
        if (hypot(ref[o], ref[o + 1]) < mu[i] * ln[i] * (1 - 1e-6))
            ++inside;
        else
            ++boundary;
    }
    assert_true(inside >= 1 && boundary >= 3);
    for (int path = 0; path < 3; ++path) {
        assert_int_equal(st[path], CDYN_OK);
        expect_optimal(&p, xs + n * path, us + n * path, ref, lmin);
    }
}

static void test_disk_fixed_contacts(void **state)
{
    (void)state;
    /* r = 0 (mu = 0, or normal = 0, or mu = 0 with a negative normal) fixes x_i = 0; when every
     * contact is fixed there is nothing to iterate: x = 0, u = c. */
    const double H[4] = {2.0, 1.0, 1.0, 2.0}, c[2] = {1.0, -3.0};
    const double mu[2] = {0.0, 0.5}, ln[2] = {-1.0, 0.0};
    cdyn_coneqp p = {0};
    p.ncontacts = 2;
    p.dim = 2;
    p.mu = mu;
    p.normal = ln;
    p.H = H;
    p.c = c;
    double x[2] = {7, 7}, u[2];
    cdyn_coneqp_info info;
    cdyn_report rep;
    assert_int_equal(cdyn_coneqp_solve(&p, NULL, x, u, &info, &rep), CDYN_OK);
    assert_true(x[0] == 0.0 && x[1] == 0.0 && u[0] == c[0] && u[1] == c[1]);
    assert_int_equal(rep.iterations, 0);
    /* One fixed, one free: the free one is the 1D clip against H restricted to it. */
    const double mu2[2] = {0.0, 0.5}, ln2[2] = {3.0, 2.0}; /* r = (0, 1) */
    p.mu = mu2;
    p.normal = ln2;
    assert_int_equal(cdyn_coneqp_solve(&p, NULL, x, u, &info, &rep), CDYN_OK);
    assert_true(x[0] == 0.0);
    assert_true(fabs(x[1] - 1.0) <= 1e-8);                  /* -c/h = 1.5 clipped to 1 */
    assert_true(fabs(u[0] - (H[2] * x[1] + c[0])) <= 1e-8); /* free multiplier = (Hx + c)_0 */
}

/* ---- cone problems ---------------------------------------------------------------------- */

static void test_cone_diagonal_h(void **state)
{
    (void)state;
    /* Mixed planar / spatial contacts, H = diag(h_n, h_t, h_t) per contact; each contact's
     * optimum is x = H^{-1/2} proj_{K'}(-H^{-1/2} c) with mu' = mu sqrt(h_t / h_n). */
    const int nc = 7;
    const int dims[7] = {3, 3, 3, 2, 2, 3, 3};
    const double mu[7] = {0.5, 0.5, 0.5, 0.8, 0.3, 0.0, 0.0};
    const double hn[7] = {1.0, 2.0, 1.5, 1.0, 0.5, 2.0, 1.0};
    const double ht[7] = {1.0, 0.5, 3.0, 2.0, 1.0, 1.0, 1.0};
    /* sticking, sliding, separated, sticking 2D, sliding 2D, frictionless pressed, lifted */
    const double c[19] = {-1.0, 0.1,  -0.1, -2.0, 1.0, 1.5, 1.0, 0.2,  0.1, -1.0,
                          0.2,  -1.0, 3.0,  -1.0, 0.4, 0.7, 0.5, -0.3, 0.2};
    const int n = 19;
    double *H = calloc((size_t)n * n, sizeof(double));
    int o = 0;
    for (int i = 0; i < nc; ++i) {
        H[o + (size_t)n * o] = hn[i];
        for (int k = 1; k < dims[i]; ++k)
            H[o + k + (size_t)n * (o + k)] = ht[i];
        o += dims[i];
    }
    cdyn_coneqp p = {0};
    p.ncontacts = nc;
    p.dims = dims;
    p.mu = mu;
    p.H = H;
    p.c = c;
    double xs[57], us[57];
    cdyn_status st[3];
    cdyn_coneqp_info info[3];
    cdyn_report rep[3];
    solve3(&p, xs, us, n, st, info, rep);
    const char *regime[7] = {"stick", "slide", "separate", "stick", "slide", "press", "lift"};
    double xref[19];
    o = 0;
    for (int i = 0; i < nc; ++i) {
        const int d = dims[i];
        double v[3], y[3], *ref = xref + o;
        v[0] = -c[o] / sqrt(hn[i]);
        for (int k = 1; k < d; ++k)
            v[k] = -c[o + k] / sqrt(ht[i]);
        cq_proj_cone(d, mu[i] * sqrt(ht[i] / hn[i]), v, y);
        ref[0] = y[0] / sqrt(hn[i]);
        for (int k = 1; k < d; ++k)
            ref[k] = y[k] / sqrt(ht[i]);
        /* the data were chosen to land in the named regime */
        double rt = 0.0;
        for (int k = 1; k < d; ++k)
            rt += ref[k] * ref[k];
        rt = sqrt(rt);
        if (!strcmp(regime[i], "stick"))
            assert_true(ref[0] > 0.1 && rt < mu[i] * ref[0] - 1e-3);
        else if (!strcmp(regime[i], "press"))
            assert_true(ref[0] > 0.1 && rt == 0.0);
        else if (!strcmp(regime[i], "slide"))
            assert_true(ref[0] > 0.1 && fabs(rt - mu[i] * ref[0]) < 1e-12);
        else
            assert_true(ref[0] == 0.0);
        o += d;
    }
    for (int path = 0; path < 3; ++path) {
        assert_int_equal(st[path], CDYN_OK);
        expect_optimal(&p, xs + (size_t)n * path, us + (size_t)n * path, xref, 0.5);
        assert_true(info[path].primal_residual <= 1e-15);
        assert_true(info[path].dual_cone_residual <= 1e-15);
        assert_true(info[path].dual_residual <= 1e-8);
        assert_true(fabs(info[path].gap) <= 1e-8);
        /* frictionless contacts: tangential entries exactly 0 */
        assert_true(xs[(size_t)n * path + 14] == 0.0 && xs[(size_t)n * path + 15] == 0.0);
    }
    free(H);
}

static void test_cone_mehrotra_cycle(void **state)
{
    (void)state;
    /* Two contacts of a cone step (a random sphere scene, rounded): contact 0 separates
     * (c_n = 9.9), contact 1 is pressed (c = (-0.1, 0, 0)) and sticks. Contact 1's block of H
     * is diagonal and c_1 has no tangential part, so with x_0 = 0 the optimum is
     * x_1 = (0.1 / 0.45, 0, 0) in the interior of its cone with u_1 = 0, and
     * u_0 = c_0 + H_01 x_1, which lies in the interior of K*: a strictly complementary
     * optimum. Plain Mehrotra steps (before the neighborhood) put x_1t on the boundary of the
     * thin cone (mu = 0.04) with u_1t = H_tt x_1t parallel to it and then cycled between
     * x_1t and -x_1t, the gap alternating 2.7e-4 / 7.0e-4 until the iteration limit. */
    const int n = 6;
    const double mu[2] = {0.04, 0.04};
    const double c[6] = {9.9, 0.17, -0.74, -0.1, 0.0, 0.0};
    /* clang-format off */
    const double H[36] = { /* symmetric */
        0.82,   0.0,    0.0,    0.04,  -0.45,  -0.035,
        0.0,    2.9,    0.0,    0.003, -0.035,  0.55,
        0.0,    0.0,    2.9,   -0.45,  -1.17,  -0.087,
        0.04,   0.003, -0.45,   0.45,   0.0,    0.0,
       -0.45,  -0.035, -1.17,   0.0,    1.59,   0.0,
       -0.035,  0.55,  -0.087,  0.0,    0.0,    1.59};
    /* clang-format on */
    const cdyn_coneqp p = {.ncontacts = 2, .dim = 3, .mu = mu, .H = H, .c = c};
    const double xref[6] = {0.0, 0.0, 0.0, 0.1 / 0.45, 0.0, 0.0};
    double uref[6];
    for (int j = 0; j < n; ++j) {
        uref[j] = c[j];
        for (int k = 0; k < n; ++k)
            uref[j] += H[j + n * k] * xref[k];
    }
    /* the reference is optimal: x_0 = 0 with u_0 in int K*, x_1 in int K with u_1 = 0 */
    assert_true(mu[0] * hypot(uref[1], uref[2]) < 0.01 * uref[0]);
    assert_true(fabs(uref[3]) + fabs(uref[4]) + fabs(uref[5]) <= 1e-15);
    double xs[18], us[18];
    cdyn_status st[3];
    cdyn_coneqp_info info[3];
    cdyn_report rep[3];
    solve3(&p, xs, us, n, st, info, rep);
    for (int path = 0; path < 3; ++path) {
        assert_int_equal(st[path], CDYN_OK);
        assert_true(rep[path].iterations <= 30);
        expect_optimal(&p, xs + (size_t)n * path, us + (size_t)n * path, xref, 0.0);
        for (int j = 0; j < n; ++j)
            assert_true(fabs(xs[(size_t)n * path + j] - xref[j]) <= 1e-8);
    }
}

static void test_cone_isotropic_random(void **state)
{
    (void)state;
    /* Many single contacts with H = h I and random data: the projection formula, all paths. */
    test_rng g;
    test_rng_seed(&g, 77);
    const int nc = 40, n = 120;
    double *H = calloc((size_t)n * n, sizeof(double)), c[120], mu[40], h[40];
    for (int i = 0; i < nc; ++i) {
        h[i] = test_rng_range(&g, 0.2, 5.0);
        mu[i] = i % 10 == 0 ? 0.0 : test_rng_range(&g, 0.05, 2.0);
        for (int k = 0; k < 3; ++k) {
            H[3 * i + k + (size_t)n * (3 * i + k)] = h[i];
            c[3 * i + k] = test_rng_range(&g, -2.0, 2.0);
        }
    }
    cdyn_coneqp p = {0};
    p.ncontacts = nc;
    p.dim = 3;
    p.mu = mu;
    p.H = H;
    p.c = c;
    double *xs = malloc(sizeof(double) * 3 * n), *us = malloc(sizeof(double) * 3 * n);
    cdyn_status st[3];
    cdyn_coneqp_info info[3];
    cdyn_report rep[3];
    solve3(&p, xs, us, n, st, info, rep);
    int counts[3] = {0, 0, 0};
    double xref[120], hmin = INFINITY;
    for (int i = 0; i < nc; ++i) {
        double v[3], *ref = xref + 3 * i;
        for (int k = 0; k < 3; ++k)
            v[k] = -c[3 * i + k] / h[i];
        cq_proj_cone(3, mu[i], v, ref);
        const double rt = hypot(ref[1], ref[2]);
        counts[ref[0] == 0.0 ? 2 : rt < mu[i] * ref[0] * (1 - 1e-9) ? 0 : 1]++;
        hmin = fmin(hmin, h[i]);
    }
    assert_true(counts[0] >= 3 && counts[1] >= 3 && counts[2] >= 3); /* stick, slide, separate */
    for (int path = 0; path < 3; ++path) {
        assert_int_equal(st[path], CDYN_OK);
        expect_optimal(&p, xs + (size_t)n * path, us + (size_t)n * path, xref, hmin);
    }
    free(H);
    free(xs);
    free(us);
}

static void test_cone_singular_h(void **state)
{
    (void)state;
    /* H = diag(0, 1, 1), c = (1, 1/2, 0), mu = 3. For x_n fixed the best x_t is
     * (-min(1/2, 3 x_n), 0); with 3 x_n <= 1/2 the objective is x_n - 3x_n/2 + 9x_n^2/2, minimal
     * at x_n = 1/18: x* = (1/18, -1/6, 0), f* = -1/72. KKT check: u = Hx + c = (1, 1/3, 0) is on
     * the boundary of K* (3 * 1/3 = 1) and x'u = 1/18 - 1/18 = 0. */
    const double H[9] = {0, 0, 0, 0, 1, 0, 0, 0, 1}, c[3] = {1.0, 0.5, 0.0}, mu[1] = {3.0};
    cdyn_coneqp p = {0};
    p.ncontacts = 1;
    p.dim = 3;
    p.mu = mu;
    p.H = H;
    p.c = c;
    double xs[9], us[9];
    cdyn_status st[3];
    cdyn_coneqp_info info[3];
    cdyn_report rep[3];
    solve3(&p, xs, us, 3, st, info, rep);
    const double xref[3] = {1.0 / 18.0, -1.0 / 6.0, 0.0};
    for (int path = 0; path < 3; ++path) {
        assert_int_equal(st[path], CDYN_OK);
        expect_optimal(&p, xs + 3 * path, us + 3 * path, xref, 0.0); /* not strongly convex */
        assert_true(fabs(info[path].primal_objective + 1.0 / 72.0) <= 1e-8);
    }
}

static void test_cone_lp_bounded_and_unbounded(void **state)
{
    (void)state;
    /* H = 0: minimize c'x over K. c in int K* (mu ||c_t|| < c_n): optimum x = 0, value 0.
     * c outside K*: d = (1, -c_t/(mu ||c_t||)) is in K with c'd = c_n - ||c_t||/mu < 0. */
    const double H[9] = {0}, mu[1] = {1.0};
    const double cin[3] = {2.0, 1.0, 0.0}, cout[3] = {1.0, 2.0, 0.0};
    cdyn_coneqp p = {0};
    p.ncontacts = 1;
    p.dim = 3;
    p.mu = mu;
    p.H = H;
    p.c = cin;
    double xs[9], us[9];
    cdyn_status st[3];
    cdyn_coneqp_info info[3];
    cdyn_report rep[3];
    solve3(&p, xs, us, 3, st, info, rep);
    for (int path = 0; path < 3; ++path) {
        assert_int_equal(st[path], CDYN_OK);
        for (int k = 0; k < 3; ++k)
            assert_true(fabs(xs[3 * path + k]) <= 1e-9);
    }
    p.c = cout;
    double x[3] = {5, 5, 5};
    cdyn_coneqp_info inf;
    cdyn_report r;
    solve3(&p, xs, us, 3, st, info, rep);
    for (int path = 0; path < 3; ++path) {
        assert_int_equal(st[path], CDYN_EUNBOUNDED);
        assert_non_null(strstr(rep[path].message, "unbounded"));
    }
    assert_int_equal(cdyn_coneqp_solve(&p, NULL, x, NULL, &inf, &r), CDYN_EUNBOUNDED);
    assert_true(x[0] == 5 && x[1] == 5 && x[2] == 5); /* untouched */
    assert_true(isfinite(inf.primal_objective) && inf.primal_objective < 0.0);
}

static void test_cone_singular_unbounded(void **state)
{
    (void)state;
    /* H = diag(0, 1, 1) (PSD, singular along the normal), c = (-1, 0, 0): the ray
     * x = (t, 0, 0), t -> inf, is in K with Hx = 0 and c'x = -t. Also a planar contact with a
     * frictionless (ray) cone: H = diag(0, 1), c = (-1, 0.3), mu = 0. */
    const double H[9] = {0, 0, 0, 0, 1, 0, 0, 0, 1}, c[3] = {-1.0, 0.0, 0.0}, mu[1] = {0.5};
    cdyn_coneqp p = {0};
    p.ncontacts = 1;
    p.dim = 3;
    p.mu = mu;
    p.H = H;
    p.c = c;
    double xs[9], us[9];
    cdyn_status st[3];
    cdyn_coneqp_info info[3];
    cdyn_report rep[3];
    solve3(&p, xs, us, 3, st, info, rep);
    for (int path = 0; path < 3; ++path)
        assert_int_equal(st[path], CDYN_EUNBOUNDED);
    const double H2[4] = {0, 0, 0, 1}, c2[2] = {-1.0, 0.3}, mu0[1] = {0.0};
    p.dim = 2;
    p.H = H2;
    p.c = c2;
    p.mu = mu0;
    solve3(&p, xs, us, 2, st, info, rep);
    for (int path = 0; path < 3; ++path)
        assert_int_equal(st[path], CDYN_EUNBOUNDED);
}

static void test_solver_reuse(void **state)
{
    (void)state;
    /* One solver, several value sets of the same structure (including mu = 0 contacts that turn
     * a full cone into a ray): each run equals a fresh one-shot solve. */
    test_rng g;
    test_rng_seed(&g, 5);
    const int nc = 30;
    int dims[30];
    for (int i = 0; i < nc; ++i)
        dims[i] = i % 3 == 0 ? 2 : 3;
    double *Hd = NULL;
    test_csc lo;
    cq_chain_delassus(&g, nc, dims, &Hd, &lo);
    const int n = lo.A.ncols;
    double *c = malloc(sizeof(double) * n), *x1 = malloc(sizeof(double) * n),
           *x2 = malloc(sizeof(double) * n), mu[30];
    for (int sparse = 0; sparse < 2; ++sparse) {
        cdyn_coneqp p = {0};
        p.ncontacts = nc;
        p.dims = dims;
        p.mu = mu;
        p.c = c;
        if (sparse)
            p.Hs = &lo.A;
        else
            p.H = Hd;
        cdyn_coneqp_solver *s = NULL;
        cdyn_report r;
        assert_int_equal(cdyn_coneqp_solver_create(&p, NULL, &s, &r), CDYN_OK);
        for (int rep = 0; rep < 4; ++rep) {
            for (int i = 0; i < nc; ++i)
                mu[i] = (i + rep) % 5 == 0 ? 0.0 : test_rng_range(&g, 0.1, 1.0);
            for (int j = 0; j < n; ++j)
                c[j] = test_rng_range(&g, -1.0, 1.0);
            cdyn_coneqp_info i1, i2;
            assert_int_equal(cdyn_coneqp_solver_solve(s, &p, x1, NULL, &i1, &r), CDYN_OK);
            assert_int_equal(cdyn_coneqp_solve(&p, NULL, x2, NULL, &i2, &r), CDYN_OK);
            /* create + solve + free is the same arithmetic: bit for bit */
            assert_memory_equal(x1, x2, sizeof(double) * (size_t)n);
            cq_kkt k;
            cq_kkt_check(&p, x1, NULL, &k);
            assert_true(k.primal <= 1e-12 && k.dual <= 1e-8 && k.comp <= 1e-8);
        }
        cdyn_coneqp_solver_free(s);
    }
    free(Hd);
    test_csc_free(&lo);
    free(c);
    free(x1);
    free(x2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disk_planar_clip),
        cmocka_unit_test(test_disk_isotropic_projection),
        cmocka_unit_test(test_disk_h_metric_projection),
        cmocka_unit_test(test_disk_fixed_contacts),
        cmocka_unit_test(test_cone_diagonal_h),
        cmocka_unit_test(test_cone_isotropic_random),
        cmocka_unit_test(test_cone_mehrotra_cycle),
        cmocka_unit_test(test_cone_singular_h),
        cmocka_unit_test(test_cone_lp_bounded_and_unbounded),
        cmocka_unit_test(test_cone_singular_unbounded),
        cmocka_unit_test(test_solver_reuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
