/* Friction-cone QP against an independent second solver and at scale.
 *
 *  - FB-Newton agreement: the same KKT conditions written as a smooth mixed complementarity
 *    problem (cdyn_mcp_solve, Fischer-Burmeister semismooth Newton). Contact i with mu_i > 0
 *    gets a multiplier beta_i >= 0 for g_i = mu_i x_n - ||x_t|| >= 0 (the Fritz John form of
 *    Song-Kumar-Pang eq. 9 with gamma = 0 and beta_0 = 1; then beta_i = ||u_t||):
 *        x_n >= 0  perp  (Hx + c)_n - beta mu >= 0,
 *        x_t free:       (Hx + c)_t + beta x_t / ||x_t|| = 0,
 *        beta >= 0 perp  mu x_n - ||x_t|| >= 0;
 *    frictionless contacts are the box x_n >= 0 with x_t fixed at 0. Disks use
 *    g_i = r_i^2 - ||x_t||^2 >= 0 (smooth, regular on the circle since r_i > 0). The cone
 *    form is differentiable where x_t != 0, which excludes the apex x_i = 0 of a cone with
 *    friction (a lifted contact) and exact sticking with x_t = 0: the cone data below keep
 *    every contact with friction pressed (checked), where x_t = 0 is not generic.
 *    Both solutions are turned into certified pairs (x projected onto K, Hx + c projected onto
 *    K*), and the test compares objective values (each is within its certified gap of the
 *    optimum) and distances (each is within its strong-convexity bound of x*).
 *  - Dense against sparse storage of the same H.
 *  - Thousands of contacts on the sparse path, checked by the KKT conditions computed here. */
#include <lapacke.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/coneqp.h"
#include "cdyn/mcp.h"
#include "coneqp_support.h"

static int cdim(const cdyn_coneqp *p, int i)
{
    return p->dims ? p->dims[i] : p->dim;
}

/* ---- the MCP of the KKT conditions ------------------------------------------------------ */

typedef struct fbctx {
    const cdyn_coneqp *p;
    int n, nb;
    int *beta; /* per contact: index of beta_i among the multipliers, or -1 */
    double *g; /* scratch: Hx + c */
} fbctx;

static void grad(const fbctx *f, const double *x)
{
    for (int i = 0; i < f->n; ++i) {
        double s = f->p->c[i];
        for (int j = 0; j < f->n; ++j)
            s += f->p->H[i + (size_t)j * f->n] * x[j];
        f->g[i] = s;
    }
}

/* Per contact: offset o, dimension d, first tangential entry t0, count nt, radius r (disks) */
typedef struct cgeom {
    int o, d, t0, nt;
    double mu, r;
} cgeom;

static cgeom geom(const cdyn_coneqp *p, int i, int o)
{
    cgeom c;
    c.o = o;
    c.d = cdim(p, i);
    c.mu = p->mu[i];
    if (p->normal == NULL) {
        c.t0 = o + 1;
        c.nt = c.d - 1;
        c.r = 0.0;
    } else {
        c.t0 = o;
        c.nt = c.d - 1;
        c.r = p->mu[i] * p->normal[i];
    }
    return c;
}

static int fb_F(void *ctx, const double *z, double *F)
{
    const fbctx *f = ctx;
    const cdyn_coneqp *p = f->p;
    grad(f, z);
    memcpy(F, f->g, sizeof(double) * (size_t)f->n);
    for (int i = 0, o = 0; i < p->ncontacts; ++i) {
        const cgeom c = geom(p, i, o);
        o += p->normal ? c.nt : c.d;
        const int b = f->beta[i];
        if (b < 0)
            continue;
        const double beta = z[f->n + b];
        double tt = 0.0;
        for (int k = 0; k < c.nt; ++k)
            tt += z[c.t0 + k] * z[c.t0 + k];
        if (p->normal == NULL) { /* g = mu x_n - ||x_t||, smooth for x_t != 0 */
            const double t = sqrt(tt);
            if (!(t > 0.0))
                return 1; /* not differentiable here: the line search steps around it */
            for (int k = 0; k < c.nt; ++k)
                F[c.t0 + k] += beta * z[c.t0 + k] / t;
            F[c.o] -= beta * c.mu;
            F[f->n + b] = c.mu * z[c.o] - t;
        } else { /* g = r^2 - ||x_t||^2 */
            for (int k = 0; k < c.nt; ++k)
                F[c.t0 + k] += 2.0 * beta * z[c.t0 + k];
            F[f->n + b] = c.r * c.r - tt;
        }
    }
    return 0;
}

static int fb_J(void *ctx, const double *z, double *J)
{
    const fbctx *f = ctx;
    const cdyn_coneqp *p = f->p;
    const size_t N = (size_t)(f->n + f->nb);
    memset(J, 0, sizeof(double) * N * N);
    for (int j = 0; j < f->n; ++j)
        for (int i = 0; i < f->n; ++i)
            J[i + j * N] = p->H[i + (size_t)j * f->n];
    for (int i = 0, o = 0; i < p->ncontacts; ++i) {
        const cgeom c = geom(p, i, o);
        o += p->normal ? c.nt : c.d;
        const int b = f->beta[i];
        if (b < 0)
            continue;
        const size_t bb = (size_t)(f->n + b);
        const double beta = z[bb];
        if (p->normal == NULL) {
            double tt = 0.0;
            for (int k = 0; k < c.nt; ++k)
                tt += z[c.t0 + k] * z[c.t0 + k];
            const double t = sqrt(tt);
            if (!(t > 0.0))
                return 1;
            for (int k = 0; k < c.nt; ++k) {
                const size_t tk = (size_t)(c.t0 + k);
                for (int l = 0; l < c.nt; ++l) { /* beta (I - e e') / ||x_t||, e = x_t/||x_t|| */
                    const size_t tl = (size_t)(c.t0 + l);
                    J[tk + tl * N] += beta * ((k == l) - z[tk] * z[tl] / tt) / t;
                }
                J[tk + bb * N] = z[tk] / t;
                J[bb + tk * N] = -z[tk] / t;
            }
            const size_t nn = (size_t)c.o;
            J[nn + bb * N] = -c.mu;
            J[bb + nn * N] = c.mu;
        } else {
            for (int k = 0; k < c.nt; ++k) {
                const size_t t = (size_t)(c.t0 + k);
                J[t + t * N] += 2.0 * beta;
                J[t + bb * N] = 2.0 * z[t];
                J[bb + t * N] = -2.0 * z[t];
            }
        }
    }
    return 0;
}

/* Solve p's KKT conditions by FB-Newton; x receives the QP part of the solution. */
static cdyn_status fb_solve(const cdyn_coneqp *p, double *x, cdyn_report *rep)
{
    const int n = cq_nvars(p), nc = p->ncontacts;
    fbctx f = {p, n, 0, malloc(sizeof(int) * (size_t)nc), malloc(sizeof(double) * (size_t)n)};
    for (int i = 0; i < nc; ++i) {
        const int free_cone = p->normal ? p->mu[i] * p->normal[i] > 0.0 : p->mu[i] > 0.0;
        f.beta[i] = free_cone ? f.nb++ : -1;
    }
    const int N = n + f.nb;
    double *lo = malloc(sizeof(double) * (size_t)N), *up = malloc(sizeof(double) * (size_t)N);
    double *z = malloc(sizeof(double) * (size_t)N);
    for (int i = 0, o = 0; i < nc; ++i) {
        const cgeom c = geom(p, i, o);
        o += p->normal ? c.nt : c.d;
        if (p->normal == NULL) { /* x_n >= 0, start pressed */
            lo[c.o] = 0.0;
            up[c.o] = INFINITY;
            z[c.o] = 1.0;
        }
        for (int k = 0; k < c.nt; ++k) {
            const int fixed = f.beta[i] < 0;
            lo[c.t0 + k] = fixed ? 0.0 : -INFINITY;
            up[c.t0 + k] = fixed ? 0.0 : INFINITY;
            z[c.t0 + k] = (fixed || p->normal) ? 0.0 : 1e-2; /* cones: off the kink x_t = 0 */
        }
    }
    for (int b = 0; b < f.nb; ++b) {
        lo[n + b] = 0.0;
        up[n + b] = INFINITY;
        z[n + b] = 0.0;
    }
    cdyn_mcp m = {0};
    m.n = N;
    m.lower = lo;
    m.upper = up;
    m.F = fb_F;
    m.jac = fb_J;
    m.ctx = &f;
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    o.max_iter = 200;
    const cdyn_status st = cdyn_mcp_solve(&m, &o, z, rep);
    memcpy(x, z, sizeof(double) * (size_t)n);
    free(f.beta);
    free(f.g);
    free(lo);
    free(up);
    free(z);
    return st;
}

/* ---- certified pairs -------------------------------------------------------------------- */

/* (xh, uh): x projected onto K (disks: scaled into the disk; fixed entries 0), then
 * u = H xh + c projected onto K* (K* of mu = 0 is the half-space u_n >= 0; disks: u free). */
static void certified_pair(const cdyn_coneqp *p, const double *x, double *xh, double *uh)
{
    const int n = cq_nvars(p);
    for (int i = 0, o = 0; i < p->ncontacts; ++i) {
        const int d = cdim(p, i);
        if (p->normal == NULL) {
            cq_proj_cone(d, p->mu[i], x + o, xh + o);
            o += d;
        } else {
            const double r = p->mu[i] * p->normal[i];
            double t = 0.0;
            for (int k = 0; k < d - 1; ++k)
                t += x[o + k] * x[o + k];
            t = sqrt(t);
            for (int k = 0; k < d - 1; ++k)
                xh[o + k] = t > r ? (r > 0.0 ? x[o + k] * r / t : 0.0) : x[o + k];
            o += d - 1;
        }
    }
    for (int i = 0; i < n; ++i) {
        double s = p->c[i];
        for (int j = 0; j < n; ++j)
            s += p->H[i + (size_t)j * n] * xh[j];
        uh[i] = s;
    }
    if (p->normal == NULL)
        for (int i = 0, o = 0; i < p->ncontacts; ++i) {
            const int d = cdim(p, i);
            double v[3];
            memcpy(v, uh + o, sizeof(double) * (size_t)d);
            cq_proj_cone(d, p->mu[i] > 0.0 ? 1.0 / p->mu[i] : INFINITY, v, uh + o);
            o += d;
        }
}

static double lambda_min_dense(int n, const double *H)
{
    double *A = malloc(sizeof(double) * (size_t)n * n), *w = malloc(sizeof(double) * (size_t)n);
    memcpy(A, H, sizeof(double) * (size_t)n * n);
    const int info = LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'L', n, A, n, w);
    const double l = info == 0 ? w[0] : NAN;
    free(A);
    free(w);
    return l;
}

/* Bounds from a certified pair: objective f(xh) and its gap bound G (f(xh) - f* <= G), and
 * the distance bound D (||xh - x*||_2 <= D). */
static void pair_bounds(const cdyn_coneqp *p, const double *xh, const double *uh, double lmin,
                        double *f, double *G, double *D)
{
    const int n = cq_nvars(p);
    cq_kkt k;
    cq_kkt_check(p, xh, uh, &k);
    assert_true(k.primal <= 1e-15 && k.udual <= 1e-15);
    *D = cq_distance_bound(&k, n, lmin);
    *f = k.obj;
    *G = fmax(k.ugap, 0.0) + k.uerr * sqrt((double)n) * *D; /* ||.||_1 <= sqrt(n) ||.||_2 */
}

static void agree(const cdyn_coneqp *p, const double *x_ipm, const double *x_fb)
{
    const int n = cq_nvars(p);
    double *xh1 = malloc(sizeof(double) * (size_t)n), *uh1 = malloc(sizeof(double) * (size_t)n);
    double *xh2 = malloc(sizeof(double) * (size_t)n), *uh2 = malloc(sizeof(double) * (size_t)n);
    const double lmin = lambda_min_dense(n, p->H);
    assert_true(lmin > 0.0);
    certified_pair(p, x_ipm, xh1, uh1);
    certified_pair(p, x_fb, xh2, uh2);
    double f1, G1, D1, f2, G2, D2, dist = 0.0;
    pair_bounds(p, xh1, uh1, lmin, &f1, &G1, &D1);
    pair_bounds(p, xh2, uh2, lmin, &f2, &G2, &D2);
    for (int j = 0; j < n; ++j)
        dist += (xh1[j] - xh2[j]) * (xh1[j] - xh2[j]);
    const double rnd = 1e-14 * (1.0 + fabs(f1));
    assert_true(fabs(f1 - f2) <= fmax(G1, G2) + rnd); /* both in [f*, f* + G] */
    assert_true(sqrt(dist) <= D1 + D2);
    /* and the certificates are those of accurate solutions */
    assert_true(G1 <= 1e-7 * (1.0 + fabs(f1)) && G2 <= 1e-7 * (1.0 + fabs(f2)));
    free(xh1);
    free(uh1);
    free(xh2);
    free(uh2);
}

/* ---- problems --------------------------------------------------------------------------- */

static void test_fb_agreement_cone(void **state)
{
    (void)state;
    for (int variant = 0; variant < 2; ++variant) {
        test_rng g;
        test_rng_seed(&g, 31 + variant);
        const int nc = variant ? 40 : 12;
        int *dims = malloc(sizeof(int) * (size_t)nc);
        for (int i = 0; i < nc; ++i)
            dims[i] = (i % 4 == 1) ? 2 : 3;
        double *H = NULL;
        test_csc lo;
        cq_chain_delassus(&g, nc, dims, &H, &lo);
        const int n = lo.A.ncols;
        double *c = malloc(sizeof(double) * (size_t)n), *mu = malloc(sizeof(double) * nc);
        for (int i = 0, o = 0; i < nc; ++i) {
            const int fl = i % 5 == 3; /* frictionless: may also lift off */
            mu[i] = fl ? 0.0 : test_rng_range(&g, 0.2, 1.0);
            c[o] = fl ? test_rng_range(&g, -1.0, 1.0) : test_rng_range(&g, -3.0, -2.0);
            for (int k = 1; k < dims[i]; ++k)
                c[o + k] = test_rng_range(&g, -1.5, 1.5);
            o += dims[i];
        }
        cdyn_coneqp p = {0};
        p.ncontacts = nc;
        p.dims = dims;
        p.mu = mu;
        p.H = H;
        p.c = c;
        double *x1 = malloc(sizeof(double) * (size_t)n), *x2 = malloc(sizeof(double) * (size_t)n);
        cdyn_report r1, r2;
        assert_int_equal(cdyn_coneqp_solve(&p, NULL, x1, NULL, NULL, &r1), CDYN_OK);
        assert_int_equal(fb_solve(&p, x2, &r2), CDYN_OK);
        /* preconditions of the MCP form: contacts with friction pressed; and the data cover
         * sticking and sliding contacts and a lifted frictionless one */
        int stick = 0, slide = 0, lifted = 0;
        for (int i = 0, o = 0; i < nc; ++i) {
            double t = 0.0;
            for (int k = 1; k < dims[i]; ++k)
                t += x1[o + k] * x1[o + k];
            t = sqrt(t);
            if (mu[i] > 0.0) {
                assert_true(x1[o] > 1e-3);
                if (t < mu[i] * x1[o] * (1.0 - 1e-4))
                    ++stick;
                else
                    ++slide;
            } else {
                lifted += x1[o] < 1e-6;
            }
            o += dims[i];
        }
        assert_true(stick >= 1 && slide >= 1 && lifted >= 1);
        agree(&p, x1, x2);
        free(dims);
        free(H);
        test_csc_free(&lo);
        free(c);
        free(mu);
        free(x1);
        free(x2);
    }
}

static void test_fb_agreement_disk(void **state)
{
    (void)state;
    for (int variant = 0; variant < 2; ++variant) {
        test_rng g;
        test_rng_seed(&g, 41 + variant);
        const int nc = variant ? 40 : 12;
        int *dims = malloc(sizeof(int) * (size_t)nc);
        for (int i = 0; i < nc; ++i)
            dims[i] = (i % 3 == 2) ? 2 : 3;
        double *H = NULL;
        test_csc lo;
        cq_chain_delassus_tangential(&g, nc, dims, &H, &lo);
        const int n = lo.A.ncols;
        double *c = malloc(sizeof(double) * (size_t)n), *mu = malloc(sizeof(double) * nc),
               *ln = malloc(sizeof(double) * nc);
        for (int i = 0; i < nc; ++i) {
            mu[i] = i % 7 == 4 ? 0.0 : test_rng_range(&g, 0.2, 1.0);
            ln[i] = i % 9 == 5 ? 0.0 : test_rng_range(&g, 0.1, 2.0);
        }
        for (int j = 0; j < n; ++j)
            c[j] = test_rng_range(&g, -1.0, 1.0);
        cdyn_coneqp p = {0};
        p.ncontacts = nc;
        p.dims = dims;
        p.mu = mu;
        p.normal = ln;
        p.H = H;
        p.c = c;
        double *x1 = malloc(sizeof(double) * (size_t)n), *x2 = malloc(sizeof(double) * (size_t)n);
        cdyn_report r1, r2;
        assert_int_equal(cdyn_coneqp_solve(&p, NULL, x1, NULL, NULL, &r1), CDYN_OK);
        assert_int_equal(fb_solve(&p, x2, &r2), CDYN_OK);
        int inside = 0, boundary = 0;
        for (int i = 0, o = 0; i < nc; ++i) {
            double t = 0.0;
            for (int k = 0; k < dims[i] - 1; ++k)
                t += x1[o + k] * x1[o + k];
            const double r = mu[i] * ln[i];
            if (r > 0.0) {
                if (sqrt(t) < r * (1.0 - 1e-4))
                    ++inside;
                else
                    ++boundary;
            }
            o += dims[i] - 1;
        }
        assert_true(inside >= 1 && boundary >= 1);
        agree(&p, x1, x2);
        free(dims);
        test_csc_free(&lo);
        free(H);
        free(c);
        free(mu);
        free(ln);
        free(x1);
        free(x2);
    }
}

static void test_dense_sparse_agreement(void **state)
{
    (void)state;
    /* The same chain problem from dense H, lower-triangle CSC and full-storage CSC: each
     * solution is certified by the KKT check, and the three objectives agree within the gaps. */
    test_rng g;
    test_rng_seed(&g, 51);
    const int nc = 60;
    int dims[60];
    for (int i = 0; i < nc; ++i)
        dims[i] = i % 2 ? 3 : 2;
    double *H = NULL;
    test_csc lo, full;
    cq_chain_delassus(&g, nc, dims, &H, &lo);
    const int n = lo.A.ncols;
    cq_dense_to_csc(n, H, 0, &full);
    double c[150], mu[60];
    for (int j = 0; j < n; ++j)
        c[j] = test_rng_range(&g, -1.0, 1.0);
    for (int i = 0; i < nc; ++i)
        mu[i] = i % 6 == 0 ? 0.0 : test_rng_range(&g, 0.1, 1.0);
    double f[3], gaps[3], x[3][150], u[150];
    for (int path = 0; path < 3; ++path) {
        cdyn_coneqp p = {0};
        p.ncontacts = nc;
        p.dims = dims;
        p.mu = mu;
        p.c = c;
        if (path == 0)
            p.H = H;
        else
            p.Hs = path == 1 ? &lo.A : &full.A;
        cdyn_report r;
        cdyn_coneqp_info info;
        assert_int_equal(cdyn_coneqp_solve(&p, NULL, x[path], u, &info, &r), CDYN_OK);
        assert_string_equal(r.method, path == 0 ? "coneqp-ipm-dense" : "coneqp-ipm-sparse");
        cq_kkt k;
        cq_kkt_check(&p, x[path], u, &k);
        assert_true(k.primal <= 1e-14 && k.udual <= 1e-14);
        assert_true(k.uerr <= 1e-8 * k.scale && k.ugap <= 1e-8 * fmax(1.0, fabs(k.obj)));
        /* the info the library reports is what this independent check measures */
        assert_true(fabs(info.dual_residual - k.uerr) <= 1e-14 * k.scale);
        assert_true(fabs(info.gap - k.ugap) <= 1e-13 * (1.0 + fabs(k.obj)));
        assert_true(fabs(info.primal_objective - k.obj) <= 1e-13 * (1.0 + fabs(k.obj)));
        f[path] = k.obj;
        gaps[path] = k.ugap + k.uerr * 1e3; /* generous: ||x - x*||_1 << 1e3 here */
    }
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
            assert_true(fabs(f[a] - f[b]) <= fmax(gaps[a], gaps[b]) + 1e-13);
    free(H);
    test_csc_free(&lo);
    test_csc_free(&full);
}

/* ---- thousands of contacts -------------------------------------------------------------- */

static void large_chain(int disk)
{
    /* 3000 contacts (every tenth planar) on a chain: the cone problem on J M^-1 J', the disk
     * problem on its tangential part; some frictionless contacts and zero normal forces. */
    test_rng g;
    test_rng_seed(&g, disk ? 62 : 61);
    const int nc = 3000;
    int *dims = malloc(sizeof(int) * nc);
    for (int i = 0; i < nc; ++i)
        dims[i] = i % 10 == 7 ? 2 : 3;
    test_csc lo;
    if (disk)
        cq_chain_delassus_tangential(&g, nc, dims, NULL, &lo);
    else
        cq_chain_delassus(&g, nc, dims, NULL, &lo);
    const int n = lo.A.ncols;
    double *c = malloc(sizeof(double) * n), *mu = malloc(sizeof(double) * nc),
           *ln = malloc(sizeof(double) * nc), *x = malloc(sizeof(double) * n),
           *u = malloc(sizeof(double) * n);
    for (int i = 0; i < nc; ++i) {
        mu[i] = i % 17 == 3 ? 0.0 : test_rng_range(&g, 0.1, 1.0);
        ln[i] = i % 13 == 5 ? 0.0 : test_rng_range(&g, 0.0, 2.0);
    }
    for (int i = 0, o = 0; i < nc; ++i) {
        const int nv = disk ? dims[i] - 1 : dims[i];
        for (int k = 0; k < nv; ++k)
            c[o + k] =
                (!disk && k == 0) ? test_rng_range(&g, -1.0, 0.3) : test_rng_range(&g, -1.0, 1.0);
        o += nv;
    }
    cdyn_coneqp p = {0};
    p.ncontacts = nc;
    p.dims = dims;
    p.mu = mu;
    p.normal = disk ? ln : NULL;
    p.Hs = &lo.A;
    p.c = c;
    cdyn_report r;
    cdyn_coneqp_info info;
    assert_int_equal(cdyn_coneqp_solve(&p, NULL, x, u, &info, &r), CDYN_OK);
    cq_kkt k;
    cq_kkt_check(&p, x, u, &k);
    assert_true(k.primal <= 1e-13 && k.udual <= 1e-13);
    assert_true(k.uerr <= 1e-8 * k.scale);
    assert_true(k.ugap <= 1e-8 * fmax(1.0, fabs(k.obj)));
    /* the data exercise every regime: active and inactive constraints */
    int active = 0, inactive = 0;
    for (int i = 0, o = 0; i < nc; ++i) {
        const int nv = disk ? dims[i] - 1 : dims[i];
        double t = 0.0;
        for (int q = disk ? 0 : 1; q < nv; ++q)
            t += x[o + q] * x[o + q];
        const double bound = disk ? mu[i] * ln[i] : mu[i] * x[o];
        if (bound > 1e-6 && sqrt(t) > bound * (1 - 1e-6))
            ++active;
        else if (bound > 1e-6)
            ++inactive;
        o += nv;
    }
    assert_true(active > nc / 20 && inactive > nc / 20);
    free(dims);
    test_csc_free(&lo);
    free(c);
    free(mu);
    free(ln);
    free(x);
    free(u);
}

static void test_large_chain_cone(void **state)
{
    (void)state;
    large_chain(0);
}

static void test_large_chain_disk(void **state)
{
    (void)state;
    large_chain(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fb_agreement_cone),      cmocka_unit_test(test_fb_agreement_disk),
        cmocka_unit_test(test_dense_sparse_agreement), cmocka_unit_test(test_large_chain_cone),
        cmocka_unit_test(test_large_chain_disk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
